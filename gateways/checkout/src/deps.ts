import type { IncomingMessage } from "node:http";
import type { Client } from "@connectrpc/connect";
import type { ServicePorts } from "@payin/operations";
import type { Logger } from "@payin/logging";
import type { notificationsV1 } from "@payin/proto";
import type { RailsConfig } from "@payin/rails";
import type { RateLimits } from "./http/rate-limit.js";
import type { Views } from "./views.js";

/** One client per service the checkout gateway calls: the operations layer's ports, and notifications (the webhook pages). */
export interface ServiceClients extends ServicePorts {
  notifications: Client<typeof notificationsV1.NotificationsService>;
}

/**
 * Everything the checkout gateway's routes use. It holds no state of its own:
 * sessions are identity's, checkouts payins', readiness allocation's, webhook
 * endpoints and their deliveries notifications', and the
 * rate-limit counters live in Redis (or in memory without REDIS_URL).
 */
export interface AppDeps extends ServiceClients {
  logger: Logger;
  views: Views;
  rateLimits: RateLimits;
  /** Chain id, token contract and decimals of each rail (the observer's configuration). */
  rails: RailsConfig;
  /** The checkout's public base address, without a trailing slash: links are `${publicUrl}/c/${token}`. */
  publicUrl: string;
  /** The client address of a request (clientAddressOf in @payin/http); by default the TCP peer. */
  clientAddress: (req: IncomingMessage) => string;
  /** The server's clock (deadlines and countdowns are computed from it). */
  now: () => Date;
}
