import Router from "@koa/router";
import type { AppDeps } from "../app.js";

/** /api/v1/admin/*: platform administration (DESIGN §8). */
export function adminRoutes(_deps: AppDeps): Router {
  return new Router({ prefix: "/api/v1/admin" });
}
