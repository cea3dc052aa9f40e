/**
 * Shared pieces of the /api/v1/admin routes: strict body and path checks, the
 * actor every change names, and the gateway's part of the audit log.
 */
import type { Context } from "koa";
import { merchantsV1 } from "@payin/proto";
import type { AppDeps } from "../../app.js";
import type { Principal } from "../../auth/authenticator.js";
import { ApiError } from "../../http/api-error.js";
import { isUuid, onlyFields, type Body } from "../../http/fields.js";
import { readJsonObject } from "../../http/body.js";
import { mapError } from "../../http/error-middleware.js";

export { requireHuman } from "../../auth/authenticator.js";
export {
  charLength,
  isUuid,
  optionalString,
  requiredString,
  requiredStringArray,
  UUID_RULE,
  type Body,
} from "../../http/fields.js";

/** A path parameter of the current route (the router always sets the declared ones). */
export function param(ctx: Context, name: string): string {
  return (ctx.params as Record<string, string | undefined>)[name] ?? "";
}

// ---------------------------------------------------------------------------
// Request bodies: unknown fields, missing fields and wrong types are 400.
// ---------------------------------------------------------------------------

/** Reads a JSON object body and refuses any field outside `allowed`. */
export async function readBody(ctx: Context, allowed: readonly string[]): Promise<Body> {
  const body = await readJsonObject(ctx);
  onlyFields(body, allowed);
  return body;
}

/**
 * For operations without a body: none, or an empty JSON object. Anything else is
 * refused so a client never believes a field it sent had an effect.
 */
export async function readNoBody(ctx: Context): Promise<void> {
  const length = ctx.get("content-length");
  const chunked = ctx.get("transfer-encoding");
  if ((length === "" || length === "0") && !chunked) return;
  await readBody(ctx, []);
}

// ---------------------------------------------------------------------------
// Merchant lookups the gateway makes before changes in other services.
// ---------------------------------------------------------------------------

/** The merchant, or 404 MERCHANT_NOT_FOUND (the merchants service's own answer). */
export async function existingMerchant(deps: AppDeps, uuid: string): Promise<merchantsV1.Merchant> {
  const res = await deps.merchants.getMerchant({ uuid });
  return res.merchant!;
}

/**
 * The merchant, refusing a closed one with 409 MERCHANT_CLOSED: a closed
 * merchant's configuration is frozen (as the merchants service does for its own).
 */
export async function openMerchant(deps: AppDeps, uuid: string): Promise<merchantsV1.Merchant> {
  const merchant = await existingMerchant(deps, uuid);
  if (merchant.status === merchantsV1.MerchantStatus.CLOSED) {
    throw new ApiError(409, "MERCHANT_CLOSED", "the merchant is closed; its configuration can no longer change");
  }
  return merchant;
}

// ---------------------------------------------------------------------------
// Actor and audit log.
// ---------------------------------------------------------------------------

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
  deps: AppDeps,
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
  deps: AppDeps,
  actor: Actor,
  action: string,
  target: AuditTarget,
  result: { outcome: "succeeded" | "failed"; errorCode: string },
): Promise<void> {
  // Only a person can be named as an actor here; a machine credential never
  // reaches a change (it lacks every admin permission).
  if (!isUuid(actor.uuid)) return;
  try {
    await deps.merchants.recordAuditEvent({
      event: {
        actor,
        action,
        targetType: target.type,
        targetUuid: isUuid(target.uuid ?? undefined) ? target.uuid!.toLowerCase() : "",
        outcome: result.outcome,
        errorCode: result.errorCode,
      },
    });
  } catch (error) {
    deps.logger.warn({ err: error, action, outcome: result.outcome }, "could not record an audit event");
  }
}
