import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

/** What travels with one request through a process and on to the next hop. */
export interface RequestContext {
  readonly requestId: string;
  /** The id a client sent with its request, when sane: logged beside ours, never used as ours. */
  readonly clientRequestId?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with `context` as the current request context. */
export function runWithContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** Runs `fn` outside any request context (for work shared by several requests). */
export function runWithoutContext<T>(fn: () => T): T {
  return storage.exit(fn);
}

/** The current request context, if any. */
export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

/** A caller's request id that is kept: printable and short (the OpenAPI document gives it as X-Request-Id's pattern). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Accepts a caller's request id when it is printable and short; otherwise mints one. Only for trusted callers (services, tools). */
export function requestIdFrom(value: string | null | undefined): string {
  return value && REQUEST_ID_PATTERN.test(value) ? value : newRequestId();
}

/** A request id the platform made. The gateways give every request one, whatever a client sent. */
export function newRequestId(): string {
  return `req_${randomUUID().replaceAll("-", "")}`;
}

/** A client's own request id when it is printable and short (kept for logs only), else nothing. */
export function clientRequestIdFrom(value: string | null | undefined): string | undefined {
  return value && REQUEST_ID_PATTERN.test(value) ? value : undefined;
}

export const REQUEST_ID_HEADER = "x-request-id";

/**
 * Log fields of the current request: `{requestId}` inside a request's context,
 * nothing outside one. Given to the process logger as pino's `mixin`, so every
 * line written while serving a request names it.
 */
export function requestLogFields(): { requestId?: string; client_request_id?: string } {
  const context = storage.getStore();
  if (!context?.requestId) return {};
  return context.clientRequestId ? { requestId: context.requestId, client_request_id: context.clientRequestId } : { requestId: context.requestId };
}
