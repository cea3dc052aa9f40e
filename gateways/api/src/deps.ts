import type { IncomingMessage } from "node:http";
import type { ServicePorts } from "@payin/operations";
import type { Logger } from "@payin/logging";
import type { Authenticator } from "./auth/authenticator.js";

/** One client per service the gateway calls: the operations layer's ports. */
export type ServiceClients = ServicePorts;

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
