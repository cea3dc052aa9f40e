import type { Context, Next } from "koa";
import type { Logger } from "@payin/logging";
import { REQUEST_ID_HEADER, clientRequestIdFrom, newRequestId, runWithContext } from "@payin/rpc";
import { ApiError } from "./errors.js";
import { loggedRoute } from "./logged-route.js";
import { mapError } from "./map-error.js";
import { SECURITY_HEADERS } from "./response-headers.js";

export { mapError, type MappedError } from "./map-error.js";

/**
 * Installed first. Gives every request an id of the platform's own (a caller's
 * `x-request-id` is only logged beside it), answers it as a header, runs the rest inside that request context so
 * RPCs carry it, and writes every failure as `{error:{code,message,request_id}}`.
 */
export function errorMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    // Always the platform's own id (logs, audit records, the answer's header); a
    // client's id is only logged beside it as client_request_id.
    const requestId = newRequestId();
    const clientRequestId = clientRequestIdFrom(ctx.get(REQUEST_ID_HEADER));
    ctx.state.requestId = requestId;
    ctx.set(REQUEST_ID_HEADER, requestId);
    ctx.set("cache-control", "no-store");
    // Set first, so that errors, 404 and 405 answers carry them as well.
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) ctx.set(name, value);
    await runWithContext({ requestId, clientRequestId }, async () => {
      try {
        await next();
        if (ctx.body === undefined || ctx.body === null) {
          // What the routers left without a body: no route, or a method the path
          // does not have (its `Allow` header is kept).
          if (ctx.status === 404) throw new ApiError("NOT_FOUND", "no such route");
          if (ctx.status === 405) throw new ApiError("METHOD_NOT_ALLOWED", "method not allowed on this path");
          if (ctx.status === 501) throw new ApiError("NOT_IMPLEMENTED", "method not implemented");
        }
      } catch (error) {
        const mapped = mapError(error);
        // 501 is a client's unknown method, not a fault of ours.
        if (mapped.status >= 500 && mapped.status !== 501) {
          // The route's template, never the raw path (a path parameter may be a secret).
          logger.error({ err: error, requestId, method: ctx.method, ...loggedRoute(ctx) }, "request failed");
        }
        ctx.status = mapped.status;
        for (const [name, value] of Object.entries(mapped.headers ?? {})) ctx.set(name, value);
        // RFC 6585 §4: every 429 says when to come back; a second unless its cause said.
        if (mapped.status === 429 && !ctx.response.get("retry-after")) ctx.set("retry-after", "1");
        // RFC 9110 §11.6.1: a 401 names the scheme that would be accepted.
        if (mapped.status === 401) ctx.set("www-authenticate", 'Bearer realm="payin"');
        ctx.body = { error: { code: mapped.code, message: mapped.message, request_id: requestId } };
      }
    });
  };
}
