import type { ConnectRouter } from "@connectrpc/connect";
import { payinsV1 } from "@payin/proto";
import { payinsHandlers, type PayinsDeps } from "./rpc/payins-handlers.js";

export const SERVICE_NAMES = [payinsV1.PayinsService.typeName];

/** Registers the payins service; mountable on a real server or an in-memory transport. */
export function routes(deps: PayinsDeps) {
  return (router: ConnectRouter) => {
    router.service(payinsV1.PayinsService, payinsHandlers(deps));
  };
}
