/**
 * A change made for a signed-in person, and the gateway's part of the audit log:
 * the merchants service records its own changes (the request names the actor);
 * changes made in identity or allocation, and every refusal, are recorded here.
 */
import type { Context } from "koa";
import { isUuidAnyCase } from "@payin/ids";
import { mapError } from "@payin/http";
import type { Principal } from "../auth/authenticator.js";
import type { AppDeps } from "../deps.js";

/** What recording an audit event needs: the merchants service (which keeps the log) and a logger. */
export type AuditDeps = Pick<AppDeps, "merchants" | "logger">;

/** The Actor (merchants.v1) of a change: the signed-in identity and the request id. */
export interface Actor {
  kind: "identity";
  uuid: string;
  requestId: string;
}

export function actorOf(ctx: Context, principal: Principal): Actor {
  return {
    kind: "identity",
    uuid: principal.identityUuid ?? "",
    requestId: String(ctx.state.requestId ?? ""),
  };
}

export interface AuditTarget {
  type: string;
  /** Omitted (or not a uuid, e.g. a malformed path value) leaves target_uuid empty. */
  uuid?: string | null;
}

export interface ChangeSpec {
  /** Dotted action name, e.g. `merchant.activate`, `credential.rotate`. */
  action: string;
  /** The target recorded for a failed attempt (and for a success when `run` names none). */
  target: AuditTarget;
  /**
   * Who records a success: `merchants` records its own changes (the request
   * carries the actor); changes made in identity or allocation are recorded here.
   */
  successRecordedBy: "merchants" | "gateway";
}

/**
 * Runs a state change for a signed-in person and keeps the audit log complete:
 * a success the merchants service did not record itself, and every refusal with
 * a 4xx code (permission, validation, not found, conflict), are recorded through
 * RecordAuditEvent. 5xx failures are not: their outcome is unknown. Recording is
 * best effort; a failed write is logged and the caller's answer is unchanged.
 * `run` may return the target of a success (e.g. a newly created identity).
 */
export async function change(
  deps: AuditDeps,
  ctx: Context,
  principal: Principal,
  spec: ChangeSpec,
  run: (actor: Actor) => Promise<AuditTarget | void>,
): Promise<void> {
  const actor = actorOf(ctx, principal);
  let target: AuditTarget | void;
  try {
    target = await run(actor);
  } catch (error) {
    const mapped = mapError(error);
    if (mapped.status >= 400 && mapped.status < 500) {
      await recordAudit(deps, actor, spec.action, spec.target, { outcome: "failed", errorCode: mapped.code });
      // Recorded under the change's own action: a security event is not recorded again.
      ctx.state.refusalAudited = true;
    }
    throw error;
  }
  if (spec.successRecordedBy === "gateway") {
    await recordAudit(deps, actor, spec.action, target ?? spec.target, { outcome: "succeeded", errorCode: "" });
  }
}

/** Records one audit event; best effort, and only for a person (see below). */
export async function recordAudit(
  deps: AuditDeps,
  actor: Actor,
  action: string,
  target: AuditTarget,
  result: { outcome: "succeeded" | "failed"; errorCode: string },
): Promise<void> {
  // Only a person can be named as an actor here; a machine credential never
  // reaches a change (it lacks every admin permission).
  if (!isUuidAnyCase(actor.uuid)) return;
  try {
    await deps.merchants.recordAuditEvent({
      event: {
        actor,
        action,
        targetType: target.type,
        targetUuid: isUuidAnyCase(target.uuid) ? target.uuid.toLowerCase() : "",
        outcome: result.outcome,
        errorCode: result.errorCode,
      },
    });
  } catch (error) {
    deps.logger.warn({ err: error, action, outcome: result.outcome }, "could not record an audit event");
  }
}
