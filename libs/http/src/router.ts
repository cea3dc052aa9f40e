import Router, { type RouterOptions } from "@koa/router";

/**
 * A router of a gateway: a path matches only as the routes write it, in the
 * same case and without a trailing slash added or dropped. `/api/v1/auth/login/`
 * and `/API/v1/auth/login` are no route (404), as the documents say; path
 * parameters still take any case (a uuid in upper case is one the routes lower).
 *
 * With `strict`, a route `/` under a prefix would be the prefix with a slash:
 * a collection's routes are written out after a shorter prefix instead.
 */
export function strictRouter(options: Omit<RouterOptions, "strict" | "sensitive"> = {}): Router {
  return new Router({ ...options, strict: true, sensitive: true });
}
