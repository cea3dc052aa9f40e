import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import { merchantsV1 } from "@payin/proto";
import { merchantsHandlers } from "./rpc/merchants-handlers.js";
import type { PayinContextFeed } from "./store/payin-context-feed.js";

export const SERVICE_NAMES = [merchantsV1.MerchantsService.typeName];

/**
 * Registers the merchants service; mountable on a real server or an in-memory
 * transport. `feed` serves the pay-in context feed (absent: its RPCs answer UNAVAILABLE).
 */
export function routes(orm: MikroORM, feed?: PayinContextFeed) {
  return (router: ConnectRouter) => {
    router.service(merchantsV1.MerchantsService, merchantsHandlers(orm, feed));
  };
}
