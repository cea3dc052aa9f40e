import type { IncomingMessage } from "node:http";
import type { Client } from "@connectrpc/connect";
import type { ServicePorts } from "@payin/operations";
import type { notificationsV1 } from "@payin/proto";
import type { Logger } from "@payin/logging";
import type { Authenticator } from "./auth/authenticator.js";

/** One client per service the gateway calls: the operations layer's ports, and notifications (events and webhook endpoints). */
export interface ServiceClients extends ServicePorts {
  notifications: Client<typeof notificationsV1.NotificationsService>;
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
