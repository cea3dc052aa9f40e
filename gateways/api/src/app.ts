import type { IncomingMessage } from "node:http";
import Koa from "koa";
import Router from "@koa/router";
import type { Client } from "@connectrpc/connect";
import type { Logger } from "@payin/logging";
import type { allocationV1, identityV1, merchantsV1, payinsV1 } from "@payin/proto";
import type { Authenticator } from "./auth/authenticator.js";
import { errorMiddleware } from "./http/error-middleware.js";
import { adminRoutes } from "./routes/admin.js";
import { authRoutes } from "./routes/auth.js";
import { openApiRoutes } from "./routes/openapi.js";
import { payInIntentRoutes } from "./routes/pay-in-intents.js";

/** Everything the gateway's routes use: the authenticator and one client per service. */
export interface AppDeps {
  logger: Logger;
  auth: Authenticator;
  payins: Client<typeof payinsV1.PayinsService>;
  identity: Client<typeof identityV1.IdentityService>;
  merchants: Client<typeof merchantsV1.MerchantsService>;
  allocation: Client<typeof allocationV1.AllocationService>;
  /** The client address of a request (see client-address.ts); by default the TCP peer. */
  clientAddress?: (req: IncomingMessage) => string;
}

/** Builds the API gateway: error middleware first, then health and /api/v1 routes. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.use(errorMiddleware(deps.logger));

  const health = new Router();
  health.get("/health", (ctx) => {
    ctx.body = { status: "ok", request_id: ctx.state.requestId };
  });

  // The merchant pay-in routes (the hot path) come first, so their requests are
  // answered without being matched against every admin route. No two routers
  // share a path, so the order changes nothing else.
  for (const router of [payInIntentRoutes(deps), health, authRoutes(deps), adminRoutes(deps), openApiRoutes()]) {
    app.use(router.routes());
    // Not thrown: the router then sets the `Allow` header of a 405 (RFC 9110
    // §15.5.6), and the error middleware writes the error body.
    app.use(router.allowedMethods({ throw: false }));
  }
  return app;
}
