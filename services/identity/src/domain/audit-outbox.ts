/**
 * The audit records of identity's administrative changes. Each change writes
 * its record to the outbox in its own transaction (no change without its
 * record); the relay (rpc/audit-relay.ts) sends the records to the merchants
 * service's audit log, which keeps each once, with its own uuid, time and
 * actor. The actor is identity's own knowledge: the person whose session
 * asked, else the internal caller that asked without one.
 */
import { DomainError } from "@payin/errors";
import type { HumanPrincipal } from "./principal.js";
import { IdentityReason } from "./reasons.js";
import type { IdentityDeps, Stores } from "./stores.js";

export type OutboxActorKind = "identity" | "operator_cli" | "system";

/** One record waiting in the outbox: the columns of merchants' audit_events, outcome always `succeeded`. */
export interface OutboxEvent {
  eventUuid: string;
  actorKind: OutboxActorKind;
  /** The person's identity uuid for `identity`; null otherwise. */
  actorUuid: string | null;
  /** The OS user the operator CLI reported (x-operator-os-user), when it asked. */
  actorOsUser: string | null;
  requestId: string | null;
  action: string;
  targetType: string;
  targetUuid: string | null;
  occurredAt: Date;
}

/** Storage of the outbox. */
export interface AuditOutboxStore {
  insert(event: OutboxEvent): Promise<void>;
  /**
   * Up to `limit` records, oldest first, locked until the transaction ends;
   * records another transaction holds are skipped, so relays of several
   * replicas never send one record at once.
   */
  claimOldest(limit: number): Promise<OutboxEvent[]>;
  /** Removes delivered records. */
  delete(eventUuids: readonly string[]): Promise<void>;
}

/** Where a change came from besides its person: the internal caller, the OS user it reported, the request id. */
export interface ChangeOrigin {
  /** The authenticated internal caller (payinctl, stack, test, api…); undefined in-process. */
  caller: string | undefined;
  /** The OS user the operator CLI reported (x-operator-os-user; "" when it sent none); null from any other caller. */
  osUser: string | null;
  requestId: string | null;
}

/** The internal caller that is the operator CLI (@payin/rpc's OPERATOR_CLI_CALLER). */
const OPERATOR_CLI_CALLER = "payinctl";
/** An operating-system user name as the operator CLI reports it (@payin/rpc's operatorOsUser; merchants' Actor.os_user). */
const OS_USER = /^[A-Za-z0-9._@-]{1,64}$/;

/**
 * Who acted: the person of the caller's session; with none, the operator CLI
 * (`operator_cli`, with its OS user) or the platform's own provisioning and the
 * test harness (`system`). The operator CLI's OS user is kept with its person
 * too; from it, a missing or malformed one (1 to 64 of A-Z, a-z, 0-9, '.', '_',
 * '@', '-') is INVALID_ARGUMENT, and the change it came with is not made.
 */
export function outboxActor(origin: ChangeOrigin | undefined, person: HumanPrincipal | null): Pick<OutboxEvent, "actorKind" | "actorUuid" | "actorOsUser"> {
  const operator = origin?.caller === OPERATOR_CLI_CALLER;
  const osUser = operator ? (origin.osUser ?? "") : null;
  if (osUser !== null && !OS_USER.test(osUser)) {
    throw new DomainError(IdentityReason.InvalidArgument, "x-operator-os-user must be 1 to 64 of A-Z, a-z, 0-9, '.', '_', '@', '-' from the operator CLI");
  }
  if (person) return { actorKind: "identity", actorUuid: person.identityUuid, actorOsUser: osUser };
  if (operator) return { actorKind: "operator_cli", actorUuid: null, actorOsUser: osUser };
  return { actorKind: "system", actorUuid: null, actorOsUser: null };
}

/** Writes the record of a change, on `tx`: call it inside the change's own transaction. */
export async function recordChange(
  tx: Stores,
  deps: IdentityDeps,
  person: HumanPrincipal | null,
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
