import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

/** What travels with one request through a process and on to the next hop. */
export interface RequestContext {
  readonly requestId: string;
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

/** Accepts a caller's request id when it is printable and short; otherwise mints one. */
export function requestIdFrom(value: string | null | undefined): string {
  return value && REQUEST_ID_PATTERN.test(value) ? value : `req_${randomUUID().replaceAll("-", "")}`;
}

export const REQUEST_ID_HEADER = "x-request-id";

/**
 * Log fields of the current request: `{requestId}` inside a request's context,
 * nothing outside one. Given to the process logger as pino's `mixin`, so every
 * line written while serving a request names it.
 */
export function requestLogFields(): { requestId?: string } {
  const requestId = storage.getStore()?.requestId;
  return requestId ? { requestId } : {};
}
