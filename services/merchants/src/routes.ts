import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import { merchantsV1 } from "@payin/proto";
import { merchantsHandlers } from "./rpc/merchants-handlers.js";

export const SERVICE_NAMES = [merchantsV1.MerchantsService.typeName];

/** Registers the merchants service; mountable on a real server or an in-memory transport. */
export function routes(orm: MikroORM) {
  return (router: ConnectRouter) => {
    router.service(merchantsV1.MerchantsService, merchantsHandlers(orm));
  };
}
