import type { IncomingMessage } from "node:http";
import type { Client } from "@connectrpc/connect";
import type { Logger } from "@payin/logging";
import type { allocationV1, identityV1, merchantsV1, payinsV1 } from "@payin/proto";
import type { Authenticator } from "./auth/authenticator.js";

/** One client per service the gateway calls. */
export interface ServiceClients {
  payins: Client<typeof payinsV1.PayinsService>;
  identity: Client<typeof identityV1.IdentityService>;
  merchants: Client<typeof merchantsV1.MerchantsService>;
  allocation: Client<typeof allocationV1.AllocationService>;
}

/**
 * Everything the gateway's routes use: the authenticator and the service
 * clients. Routers and route tables each take the Pick of it they use, so what a
 * piece of the gateway can reach is in its signature.
 */
export interface AppDeps extends ServiceClients {
  logger: Logger;
  auth: Authenticator;
  /** The client address of a request (see clientAddressOf in @payin/http); by default the TCP peer. */
  clientAddress?: (req: IncomingMessage) => string;
}
