import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import type { Logger } from "@payin/logging";
import { allocationV1 } from "@payin/proto";
import type { MerchantReadinessSource } from "./domain/readiness.js";
import type { DeriveRange } from "./domain/wallet.js";
import { allocationHandlers } from "./rpc/allocation-handlers.js";

export const SERVICE_NAMES = [allocationV1.AllocationService.typeName];

/**
 * Registers the allocation service; mountable on a real server or an in-memory
 * transport. `merchants` answers the merchant's side of readiness; `deriveRange`
 * derives pool addresses (on the calling thread when not given).
 */
export function routes(merchants: MerchantReadinessSource, deriveRange?: DeriveRange) {
  return (orm: MikroORM, logger: Logger) => (router: ConnectRouter) => {
    router.service(allocationV1.AllocationService, allocationHandlers(orm, logger, merchants, deriveRange));
  };
}
