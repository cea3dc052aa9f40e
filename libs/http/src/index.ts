/**
 * The HTTP edge every gateway shares: request ids and the error middleware
 * (`{error:{code,message,request_id}}`), the public error catalogue and its
 * mapping from service failures, body reading (koa-body; strict UTF-8, no JSON
 * name given twice) and query reading with their limits, strict case-sensitive
 * routers, the Node parser's client-error handler, response security headers and the client
 * address behind trusted proxies, and reading and setting host-only cookies.
 */
export * from "./errors.js";
export * from "./text.js";
export * from "./fields.js";
export * from "./body.js";
export * from "./duplicate-keys.js";
export * from "./router.js";
export * from "./query.js";
export * from "./error-middleware.js";
export * from "./logged-route.js";
export * from "./client-error.js";
export * from "./client-address.js";
export * from "./rate-limit-key.js";
export * from "./response-headers.js";
export * from "./cookies.js";
