import type { Context, Next } from "koa";
import type { Logger } from "@payin/logging";
import { ConnectError, Code, REQUEST_ID_HEADER, httpStatusForCode, reasonOf, requestIdFrom, retryAfterOf, runWithContext } from "@payin/rpc";
import { ApiError, httpLayerCode, publicCodeFor, type PublicErrorCode } from "./errors.js";
import { SECURITY_HEADERS } from "./response-headers.js";

/** The public answer to a failure. */
export interface MappedError {
  status: number;
  code: PublicErrorCode;
  message: string;
  headers?: Record<string, string>;
}

/**
 * Maps any thrown value to the public answer. Nothing internal leaks: a
 * service's reason reaches the client only when it is a code of the catalogue
 * (publicCodeFor), and anything unexpected is a 500 with a generic message.
 */
export function mapError(error: unknown): MappedError {
  if (error instanceof ApiError) return { status: error.status, code: error.code, message: error.message, headers: error.headers };
  if (error instanceof ConnectError) {
    // A bare Aborted is a call cut off in transit ("socket hang up", ECONNRESET:
    // the service went away mid-call); domain Aborted answers carry a reason.
    const cutOff = error.code === Code.Aborted && !reasonOf(error);
    if (error.code === Code.Unavailable || error.code === Code.DeadlineExceeded || cutOff) {
      return {
        status: 503,
        code: "SERVICE_UNAVAILABLE",
        message: "the service is temporarily unavailable; retry with backoff",
        headers: { "retry-after": "1" },
      };
    }
    const reason = reasonOf(error);
    const status = httpStatusForCode(error.code);
    // Only a reasoned 4xx is a domain answer; a bare one (e.g. a refused service
    // credential) is a fault of ours and is masked like any other.
    if (reason && reason !== "INTERNAL" && status < 500) {
      const code = publicCodeFor(reason, status);
      // A refusal that lifts by itself says when: the service's time, else a second.
      if (status === 429) return { status, code, message: error.rawMessage, headers: { "retry-after": String(retryAfterOf(error) ?? 1) } };
      return { status, code, message: error.rawMessage };
    }
  }
  const httpError = error as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof httpError?.status === "number" && httpError.status >= 400 && httpError.status < 500 && httpError.expose) {
    return { status: httpError.status, code: httpLayerCode(httpError.status), message: String(httpError.message) };
  }
  return { status: 500, code: "INTERNAL_ERROR", message: "an unexpected error occurred" };
}

/**
 * Installed first. Gives every request an id (the caller's `x-request-id` when it
 * is sane), echoes it as a header, runs the rest inside that request context so
 * RPCs carry it, and writes every failure as `{error:{code,message,request_id}}`.
 */
export function errorMiddleware(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const requestId = requestIdFrom(ctx.get(REQUEST_ID_HEADER));
    ctx.state.requestId = requestId;
    ctx.set(REQUEST_ID_HEADER, requestId);
    ctx.set("cache-control", "no-store");
    // Set first, so that errors, 404 and 405 answers carry them as well.
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) ctx.set(name, value);
    await runWithContext({ requestId }, async () => {
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
          logger.error({ err: error, requestId, method: ctx.method, path: ctx.path }, "request failed");
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
