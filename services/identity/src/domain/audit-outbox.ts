/**
 * The audit records of identity's administrative changes. Each change writes
 * its record to the outbox in its own transaction (no change without its
 * record); the relay (@payin/db, audit-outbox.ts) sends the records to the merchants
 * service's audit log, which keeps each once, with its own uuid, time and
 * actor. The actor is identity's own knowledge: the person whose session
 * asked, else the internal caller that asked without one.
 */
import { DomainError } from "@payin/errors";
import { recordedActor, type ChangeOrigin } from "@payin/rpc";
import type { HumanPrincipal } from "./principal.js";
import { IdentityReason } from "./reasons.js";
import type { IdentityDeps, Stores } from "./stores.js";

export type { AuditOutboxStore, OutboxEvent } from "@payin/db";
export type { ChangeOrigin } from "@payin/rpc";

/**
 * Who acted (@payin/rpc's recordedActor): the person of the caller's session;
 * with none, the operator CLI (`operator_cli`, with its OS user) or the
 * platform's own provisioning and the test harness (`system`). From the
 * operator CLI a missing or malformed OS user is INVALID_ARGUMENT, and the
 * change it came with is not made.
 */
export function outboxActor(origin: ChangeOrigin | undefined, person: Pick<HumanPrincipal, "identityUuid"> | null) {
  const recorded = recordedActor(origin, person?.identityUuid ?? null);
  if (!recorded.ok) throw new DomainError(IdentityReason.InvalidArgument, "x-operator-os-user must be 1 to 64 of A-Z, a-z, 0-9, '.', '_', '@', '-' from the operator CLI");
  return recorded.actor;
}

/** Writes the record of a change, on `tx`: call it inside the change's own transaction. */
export async function recordChange(
  tx: Stores,
  deps: IdentityDeps,
  person: Pick<HumanPrincipal, "identityUuid"> | null,
  change: { action: string; targetType: string; targetUuid: string | null },
  now: Date,
): Promise<void> {
  await tx.outbox.insert({
    eventUuid: deps.newId(),
    ...outboxActor(deps.origin, person),
    requestId: deps.origin?.requestId ?? null,
    ...change,
    occurredAt: now,
  });
}
