import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import type { Logger } from "@payin/logging";
import { identityV1 } from "@payin/proto";
import { identityHandlers, type IdentityHandlerOptions } from "./rpc/identity-handlers.js";

export const SERVICE_NAMES = [identityV1.IdentityService.typeName];

/** What the identity service is built from: the database, the logger, the TOTP key and the clock. */
export interface IdentityPorts extends IdentityHandlerOptions {
  orm: MikroORM;
  logger: Logger;
}

/** Builds the identity service from its ports: mountable on a real server (main.ts) or an in-memory transport (tests). */
export function createIdentityService(ports: IdentityPorts) {
  const { orm, logger, ...options } = ports;
  return (router: ConnectRouter) => {
    router.service(identityV1.IdentityService, identityHandlers(orm, logger, options));
  };
}
