import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import type { Logger } from "@payin/logging";
import { allocationV1 } from "@payin/proto";
import { allocationHandlers } from "./rpc/allocation-handlers.js";

export const SERVICE_NAMES = [allocationV1.AllocationService.typeName];

/** Registers the allocation service; mountable on a real server or an in-memory transport. */
export function routes(orm: MikroORM, logger: Logger) {
  return (router: ConnectRouter) => {
    router.service(allocationV1.AllocationService, allocationHandlers(orm, logger));
  };
}
