import Router from "@koa/router";
import type { AppDeps } from "../../deps.js";

/** The merchant area under /merchant. */
export function merchantRoutes(_deps: AppDeps): Router {
  return new Router();
}
