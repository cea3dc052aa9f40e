/**
 * The gateway's side of @payin/operations: the actor of a request (the
 * signed-in person and the request id) and the ports the operations take (the
 * service clients, and the logger for an audit record that could not be
 * written). The audit rule itself is the library's.
 */
import type { Context } from "koa";
import { audited, type Actor, type AuditPorts, type ChangeSpec } from "@payin/operations";
import type { Principal } from "./auth/authenticator.js";
import type { AppDeps } from "./deps.js";

/** What vouches for the actor of a change: identity's assertion of the signed-in person (the request id travels as the call's header). */
export function actorOf(principal: Principal): Actor {
  return { assertion: principal.actorAssertion, osUser: "" };
}

/** The gateway's clients as the operations' ports; a record that could not be written is a warn line. */
export function operationPorts<D extends Pick<AppDeps, "merchants" | "logger">>(deps: D): D & AuditPorts {
  return {
    ...deps,
    auditFailed: (error, event) => deps.logger.warn({ err: error, ...event }, "could not record an audit event"),
  };
}

/** A change of the gateway's own (a person's session, password, TOTP) under the audit rule. */
export function change<T>(deps: Pick<AppDeps, "merchants" | "logger">, ctx: Context, principal: Principal, spec: ChangeSpec<T>, run: () => Promise<T>): Promise<T> {
  return audited(operationPorts(deps), actorOf(principal), spec, run);
}
