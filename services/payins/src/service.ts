import type { ConnectRouter } from "@connectrpc/connect";
import { payinsV1 } from "@payin/proto";
import { payinsHandlers, type PayinsDeps } from "./rpc/payins-handlers.js";

export const SERVICE_NAMES = [payinsV1.PayinsService.typeName];

/** What the payins service is built from: the database, the logger, the merchant directory and the address allocator. */
export type PayinsPorts = PayinsDeps;

/** Builds the payins service from its ports: mountable on a real server (main.ts) or an in-memory transport (tests). */
export function createPayinsService(ports: PayinsPorts) {
  return (router: ConnectRouter) => {
    router.service(payinsV1.PayinsService, payinsHandlers(ports));
  };
}
