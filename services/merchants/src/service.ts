import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import { merchantsV1 } from "@payin/proto";
import { merchantsHandlers } from "./rpc/merchants-handlers.js";
import type { PayinContextFeed } from "./store/payin-context-feed.js";

export const SERVICE_NAMES = [merchantsV1.MerchantsService.typeName];

/** What the merchants service is built from. */
export interface MerchantsPorts {
  orm: MikroORM;
  /** Serves the pay-in context feed (absent: its RPCs answer UNAVAILABLE). */
  feed?: PayinContextFeed;
}

/** Builds the merchants service from its ports: mountable on a real server (main.ts) or an in-memory transport (tests). */
export function createMerchantsService(ports: MerchantsPorts) {
  return (router: ConnectRouter) => {
    router.service(merchantsV1.MerchantsService, merchantsHandlers(ports.orm, ports.feed));
  };
}
