/**
 * The audit rule, whoever makes the change (the API gateway for a person,
 * payinctl for the operator): a success the service that made it did not record
 * itself (merchants records its own changes, the request naming the actor;
 * identity its own, through its audit outbox), and every
 * refusal — any answer a client would get as a 4xx (permission, validation, not
 * found, conflict, whether the caller or a service refused) — are recorded
 * through RecordAuditEvent, refusals with their public error code. Failures with
 * no answer (unavailable, deadline, 5xx) are not: their outcome is unknown.
 * Recording is best effort: a failed write is reported and the answer stands.
 */
import { mapError } from "@payin/http/map-error";
import type { PublicErrorCode } from "@payin/http/errors";
import { isUuidAnyCase } from "@payin/ids";
import type { ServicePorts } from "./ports.js";

/**
 * What vouches for the actor of a change (merchants.v1 Actor in a request):
 * identity's assertion of the signed-in person (Principal.actor_assertion),
 * and from the operator CLI the OS user it runs as. The service that records
 * the change stamps who acted from it, and the request id from the call.
 */
export interface Actor {
  assertion: string;
  osUser: string;
}


export interface AuditTarget {
  type: string;
  /** Omitted (or not a uuid, e.g. a malformed path value) leaves target_uuid empty. */
  uuid?: string | null;
}

export type AuditOutcome = "succeeded" | "failed";

export interface ChangeSpec<T = unknown> {
  /** Dotted action name, e.g. `merchant.activate`, `credential.rotate`. */
  action: string;
  /** The target recorded for a refusal, and for a success unless `succeeded` names another. */
  target: AuditTarget;
  /**
   * Who records a success: the service that makes the change, in the change's
   * transaction (`merchants` in its log; `identity` and `allocation` through
   * their audit outboxes, delivered to the log shortly after); `operations`
   * records it here, after the change (kept for changes no service records).
   */
  successRecordedBy: "merchants" | "identity" | "allocation" | "operations";
  /** The target of a success, when only the result names it (e.g. a new identity). */
  succeeded?: (result: T) => AuditTarget;
}

/** What recording needs: the merchants service, which keeps the log, and where to report a record that failed. */
export interface AuditPorts {
  merchants: Pick<ServicePorts["merchants"], "recordAuditEvent">;
  auditFailed: (error: unknown, event: { action: string; outcome: AuditOutcome }) => void;
}

/** The public code of a refusal (an answer a client gets as a 4xx), or null for anything else. */
export function refusalCode(error: unknown): PublicErrorCode | null {
  const mapped = mapError(error);
  // mapError answers an error status only: below 500 is a refusal.
  return mapped.status < 500 ? mapped.code : null;
}

/** The refusals a change has recorded under its own action (see refusalRecorded). */
const recordedRefusals = new WeakSet<object>();

/**
 * True when `error` is a refusal a change already recorded under its own action
 * (e.g. `merchant.create`, failed, FORBIDDEN): the API gateway's security
 * events then do not record it a second time.
 */
export function refusalRecorded(error: unknown): boolean {
  // A WeakSet holds objects only; asked about anything else it answers false.
  return recordedRefusals.has(error as object);
}

/** Runs a change under the audit rule (above) and answers its result. */
export async function audited<T>(ports: AuditPorts, actor: Actor, spec: ChangeSpec<T>, run: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await run();
  } catch (error) {
    const code = refusalCode(error);
    if (code) {
      // A refusal is an error object (a primitive maps to a 500).
      recordedRefusals.add(error as object);
      await recordAudit(ports, actor, spec.action, spec.target, { outcome: "failed", errorCode: code });
    }
    throw error;
  }
  if (spec.successRecordedBy === "operations") {
    await recordAudit(ports, actor, spec.action, spec.succeeded?.(result) ?? spec.target, { outcome: "succeeded", errorCode: "" });
  }
  return result;
}

/**
 * Records one audit event; best effort. An actor nothing vouches for (no
 * assertion, no operator) is not recorded: the service would refuse it.
 */
export async function recordAudit(
  ports: AuditPorts,
  actor: Actor,
  action: string,
  target: AuditTarget,
  result: { outcome: AuditOutcome; errorCode: string },
): Promise<void> {
  if (actor.assertion === "" && actor.osUser === "") return;
  try {
    await ports.merchants.recordAuditEvent({
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
    ports.auditFailed(error, { action, outcome: result.outcome });
  }
}
