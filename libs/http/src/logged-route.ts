import type { Context } from "koa";

/** What is logged for a request that matched no route: never any of its path. */
export const UNMATCHED_ROUTE = "(unmatched)";

/**
 * The path of a request as it may be logged: the template of the route that
 * matched it (`/c/:token`, `/api/v1/merchants/:uuid`), so a secret in a path
 * parameter (a checkout token) never reaches a log whatever the raw path's
 * case or shape. A request no route matched is logged as `(unmatched)` and the
 * raw path's length only, since any of its segments could be a token.
 */
export function loggedRoute(ctx: Context): { route: string; pathLength?: number } {
  const matched = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
  return typeof matched === "string" && matched !== "" ? { route: matched } : { route: UNMATCHED_ROUTE, pathLength: ctx.path.length };
}
