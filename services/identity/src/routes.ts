import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import type { Logger } from "@payin/logging";
import { identityV1 } from "@payin/proto";
import { identityHandlers, type IdentityHandlerOptions } from "./rpc/identity-handlers.js";

export const SERVICE_NAMES = [identityV1.IdentityService.typeName];

/** Registers the identity service; mountable on a real server or an in-memory transport. */
export function routes(orm: MikroORM, logger: Logger, options: IdentityHandlerOptions) {
  return (router: ConnectRouter) => {
    router.service(identityV1.IdentityService, identityHandlers(orm, logger, options));
  };
}
