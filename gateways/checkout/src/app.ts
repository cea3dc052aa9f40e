import Koa from "koa";
import { strictRouter } from "@payin/http";
import type { AppDeps } from "./deps.js";
import { pageErrorMiddleware } from "./http/page-errors.js";
import { merchantRoutes } from "./routes/merchant/index.js";
import { publicRoutes } from "./routes/public.js";
import { staticRoutes } from "./routes/static.js";

export type { AppDeps } from "./deps.js";

/** Builds the checkout gateway: errors and security headers first, then health, assets, the payer's pages and the merchant area. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.use(pageErrorMiddleware(deps.logger, deps.views));

  const health = strictRouter();
  health.get("/health", (ctx) => {
    ctx.body = { status: "ok", request_id: ctx.state.requestId };
  });

  for (const router of [publicRoutes(deps), staticRoutes(), health, merchantRoutes(deps)]) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: false }));
  }
  return app;
}
