/**
 * Refusals on the administrative routes as security events. Decided by the
 * answer's status and code, whoever threw it (the authenticator, a permission
 * or MFA check, or a service re-checking the caller): every 401 and 403 is
 * logged, and a 403 of a known person also reaches the audit log. The event
 * carries the route pattern, never a path value, token, cookie, CSRF token or body.
 */
import type { Context, Next } from "koa";
import type { AppDeps } from "../../deps.js";
import type { Principal } from "../../auth/authenticator.js";
import { isUuidAnyCase } from "@payin/ids";
import { clientAddressOf, mapError } from "@payin/http";
import { recordAudit, refusalRecorded, type AuditTarget } from "@payin/operations";
import { actorOf, operationPorts } from "../../operations.js";

export interface SecurityEvent {
  event: "security.unauthenticated" | "security.csrf_refused" | "security.permission_denied";
  status: number;
  code: string;
  method: string;
  /** The route pattern, e.g. /api/v1/admin/merchants/:uuid. */
  route: string;
  /** The person refused, when the credential was resolved. */
  identityUuid: string | null;
  /** The merchant of a refused machine credential. */
  merchantUuid: string | null;
  clientIp: string;
  requestId: string;
}

/** The audit target type of each admin resource (the path's first segment). */
const TARGET_TYPES: Record<string, string> = {
  identities: "identity",
  merchants: "merchant",
  rules: "rule",
  providers: "provider",
  "audit-events": "audit_event",
};

/**
 * The event a refused request is, or null for any other answer. `clientIp` is
 * the request's client address as sign-in sees it (trusted-proxy aware, see
 * clientAddressOf in @payin/http).
 */
export function securityEventOf(ctx: Context, status: number, code: string, clientIp: string): SecurityEvent | null {
  let event: SecurityEvent["event"];
  if (status === 401) event = "security.unauthenticated";
  else if (status === 403) event = code === "CSRF_TOKEN_INVALID" ? "security.csrf_refused" : "security.permission_denied";
  else return null;
  const principal = ctx.state.principal as Principal | undefined;
  return {
    event,
    status,
    code,
    method: ctx.method,
    route: String(ctx._matchedRoute ?? ""),
    // A 401 names nobody, even when a later call found the session ended.
    identityUuid: status === 403 && principal?.kind === "human" ? (principal.identityUuid ?? null) : null,
    merchantUuid: principal?.kind === "machine" ? principal.merchantUuid : null,
    clientIp,
    requestId: String(ctx.state.requestId ?? ""),
  };
}

/** What an audit event names as the target: the route's resource and its uuid, when the path has one. */
function targetOf(ctx: Context, route: string): AuditTarget {
  const segment = /^\/api\/v1\/admin\/([^/]+)/.exec(route)?.[1] ?? "";
  const uuid = (ctx.params as Record<string, string | undefined> | undefined)?.uuid;
  return { type: TARGET_TYPES[segment] ?? "admin_route", uuid: isUuidAnyCase(uuid) ? uuid : null };
}

/**
 * Middleware of the admin router. A refusal a change already recorded under its
 * own action (refusalRecorded, @payin/operations' audit rule) is logged only, so no
 * refusal is in the audit log twice. A machine credential or an unresolved one
 * is logged only: an audit event's actor is a person.
 */
export function securityEvents(deps: Pick<AppDeps, "merchants" | "logger" | "clientAddress">) {
  const ports = operationPorts(deps);
  // The address sign-in throttling uses: behind a trusted proxy, the client it forwarded.
  const addressOf = deps.clientAddress ?? clientAddressOf([]);
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } catch (error) {
      const mapped = mapError(error);
      const event = securityEventOf(ctx, mapped.status, mapped.code, addressOf(ctx.req));
      if (event) {
        deps.logger.warn(event, "security event");
        const principal = ctx.state.principal as Principal | undefined;
        if (event.identityUuid && principal && !refusalRecorded(error)) {
          await recordAudit(ports, actorOf(principal), event.event, targetOf(ctx, event.route), { outcome: "failed", errorCode: event.code });
        }
      }
      throw error;
    }
  };
}
