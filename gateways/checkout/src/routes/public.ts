import Router from "@koa/router";
import type { AppDeps } from "../deps.js";

/** The payer's pages: GET /c/:token, POST /c/:token/start, GET /c/:token/status. */
export function publicRoutes(_deps: AppDeps): Router {
  return new Router();
}
