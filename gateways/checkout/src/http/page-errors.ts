import type { Context, Next } from "koa";
import { ApiError, loggedRoute, mapError, type MappedError } from "@payin/http";
import type { Logger } from "@payin/logging";
import { REQUEST_ID_HEADER, clientRequestIdFrom, newRequestId, runWithContext } from "@payin/rpc";
import type { Views } from "../views.js";
import { PAGE_SECURITY_HEADERS } from "./security.js";

/** Titles of the error page, in plain words, by status. */
const PAGE_TITLES: Readonly<Record<number, string>> = {
  400: "Something in the request was not right",
  403: "Not allowed",
  404: "Page not found",
  405: "Not allowed here",
  409: "This cannot be done now",
  413: "Too much data",
  415: "Unsupported request",
  429: "Too many requests",
  501: "Not supported here",
  503: "Temporarily unavailable",
};

/** Whether a request is answered in JSON (the status poll) rather than with a page. */
export function wantsJson(ctx: Context): boolean {
  return /^\/c\/[^/]+\/status\/?$/.test(ctx.path);
}

/**
 * Installed first. Gives each request an id, sets the security headers and
 * `Cache-Control: no-store`, and answers every failure: `{error:{code,message,
 * request_id}}` on JSON routes, a readable page elsewhere; never a stack trace.
 */
export function pageErrorMiddleware(logger: Logger, views: Views) {
  return async (ctx: Context, next: Next) => {
    // Always the platform's own id (logs, audit records, the answer's header); a
    // client's id is only logged beside it as client_request_id.
    const requestId = newRequestId();
    const clientRequestId = clientRequestIdFrom(ctx.get(REQUEST_ID_HEADER));
    ctx.state.requestId = requestId;
    ctx.set(REQUEST_ID_HEADER, requestId);
    ctx.set("cache-control", "no-store");
    for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) ctx.set(name, value);
    await runWithContext({ requestId, clientRequestId }, async () => {
      try {
        await next();
        if ((ctx.body === undefined || ctx.body === null) && ctx.status === 404) throw new ApiError("NOT_FOUND", "There is no page at this address.");
        if ((ctx.body === undefined || ctx.body === null) && ctx.status === 405) throw new ApiError("METHOD_NOT_ALLOWED", "This address does not take that kind of request.");
        // A method no route of the gateway has (PROPFIND, …): the router's bare 501.
        if ((ctx.body === undefined || ctx.body === null) && ctx.status === 501) throw new ApiError("NOT_IMPLEMENTED", "This site does not take that kind of request.");
      } catch (error) {
        const mapped = mapError(error);
        // 501 is a client's unknown method, not a fault of ours.
        if (mapped.status >= 500 && mapped.status !== 501) logger.error({ err: error, requestId, method: ctx.method, ...loggedRoute(ctx) }, "request failed");
        answerError(ctx, views, mapped, requestId);
      }
    });
  };
}

function answerError(ctx: Context, views: Views, mapped: MappedError, requestId: string): void {
  ctx.status = mapped.status;
  for (const [name, value] of Object.entries(mapped.headers ?? {})) ctx.set(name, value);
  if (mapped.status === 429 && !ctx.response.get("retry-after")) ctx.set("retry-after", "1");
  if (wantsJson(ctx)) {
    ctx.body = { error: { code: mapped.code, message: mapped.message, request_id: requestId } };
    return;
  }
  ctx.type = "html";
  ctx.body = views.render("errors/error.njk", {
    status: mapped.status,
    title: PAGE_TITLES[mapped.status] ?? (mapped.status >= 500 ? "Something went wrong on our side" : "The request could not be handled"),
    message: mapped.status >= 500 && mapped.status !== 501 ? "Please try again in a moment." : mapped.message,
    retryAfter: mapped.status === 429 ? ctx.response.get("retry-after") : undefined,
    code: mapped.code,
    requestId,
  });
}
