import Koa from "koa";
import type { AppDeps } from "./deps.js";
import { errorMiddleware, strictRouter } from "@payin/http";
import { adminRoutes } from "./routes/admin.js";
import { authRoutes } from "./routes/auth.js";
import { openApiRoutes } from "./routes/openapi.js";
import { payInIntentRoutes } from "./routes/pay-in-intents.js";
import { webhookRoutes } from "./routes/webhooks/routes.js";

export type { AppDeps } from "./deps.js";

/** Builds the API gateway: error middleware first, then health and /api/v1 routes. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.use(errorMiddleware(deps.logger));

  const health = strictRouter();
  health.get("/health", (ctx) => {
    ctx.body = { status: "ok", request_id: ctx.state.requestId };
  });

  // The merchant pay-in routes (the hot path) come first, so their requests are
  // answered without being matched against every admin route. No two routers
  // share a path, so the order changes nothing else.
  for (const router of [payInIntentRoutes(deps), webhookRoutes(deps), health, authRoutes(deps), adminRoutes(deps), openApiRoutes()]) {
    app.use(router.routes());
    // Not thrown: the router then sets the `Allow` header of a 405 (RFC 9110
    // §15.5.6), and the error middleware writes the error body.
    app.use(router.allowedMethods({ throw: false }));
  }
  return app;
}
