import type { Deps } from "./unit-of-work.js";
import { checkPage, checkUuid, invalid } from "./validation.js";

export type ActorKind = "identity" | "machine_credential" | "operator_cli" | "system";
export const ACTOR_KINDS: readonly ActorKind[] = ["identity", "machine_credential", "operator_cli", "system"];

/**
 * Who asked for a change. `uuid` is set exactly for identities and machine
 * credentials; `osUser` is the operating-system user the operator CLI ran as.
 */
export interface Actor {
  kind: ActorKind;
  uuid: string | null;
  requestId: string | null;
  osUser: string | null;
}

/** An actor as the service stamped it (rpc/actor.ts), checked again before it is kept. */
export interface ActorInput {
  kind: string;
  uuid: string;
  requestId: string;
  osUser: string | null;
}

export type AuditOutcome = "succeeded" | "failed";

/** One entry of the append-only audit log. */
export interface AuditEvent {
  eventUuid: string;
  actor: Actor;
  /** Dotted lower-case name, e.g. `merchant.activate`. */
  action: string;
  /** Lower-case kind of the target, e.g. `merchant`. */
  targetType: string;
  targetUuid: string | null;
  outcome: AuditOutcome;
  /** Public error code when the outcome is `failed`, else null. */
  errorCode: string | null;
  occurredAt: Date;
}

/** An audit event as a caller sends it to RecordAuditEvent. */
export interface AuditEventInput {
  actor: ActorInput | undefined;
  action: string;
  targetType: string;
  targetUuid: string;
  outcome: string;
  errorCode: string;
}

/** Exact filters of a listing; an absent one matches every event. */
export interface AuditFilter {
  action?: string;
  targetType?: string;
  targetUuid?: string;
  actorKind?: ActorKind;
  actorUuid?: string;
  outcome?: AuditOutcome;
}

/** Storage of the audit log. */
export interface AuditStore {
  append(event: AuditEvent): Promise<void>;
  /** Appends the event unless one with its event_uuid is in the log; true when it was appended. */
  appendIfNew(event: AuditEvent): Promise<boolean>;
  /** A page of the events matching `filter`, newest first, and how many match. */
  list(page: { limit: number; offset: number }, filter: AuditFilter): Promise<{ events: AuditEvent[]; total: number }>;
}

const ACTION = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
const TARGET_TYPE = /^[a-z][a-z0-9_]*$/;
const ERROR_CODE = /^[A-Z][A-Z0-9_]*$/;
/** Visible ASCII only: request ids are opaque tokens, never free text. */
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Validates an actor. Identities and machine credentials carry their uuid; the
 * operator CLI and the system carry none. The request id is optional.
 */
export function validateActor(input: ActorInput): Actor {
  if (!(ACTOR_KINDS as readonly string[]).includes(input.kind)) {
    invalid(`actor.kind must be one of: ${ACTOR_KINDS.join(", ")}`);
  }
  const kind = input.kind as ActorKind;
  let uuid: string | null = null;
  if (kind === "identity" || kind === "machine_credential") {
    uuid = checkUuid("actor.uuid", input.uuid);
  } else if (input.uuid !== "") {
    invalid(`actor.uuid must be empty for actor.kind ${kind}`);
  }
  if (input.requestId !== "" && !REQUEST_ID.test(input.requestId)) {
    invalid("actor.request_id must be 1 to 128 visible ASCII characters");
  }
  return { kind, uuid, requestId: input.requestId === "" ? null : input.requestId, osUser: input.osUser };
}

/** Validates an optional actor: an absent one stays absent (no audit event is written). */
export function optionalActor(input: ActorInput | undefined): Actor | null {
  return input ? validateActor(input) : null;
}

/**
 * Validates an event sent by another component (the gateway records failures and
 * the changes other services make). The event uuid and time are the service's.
 */
export function newAuditEvent(input: AuditEventInput, eventUuid: string, now: Date): AuditEvent {
  if (!input.actor) invalid("actor is required");
  const actor = validateActor(input.actor);
  if (input.action.length > 64 || !ACTION.test(input.action)) {
    invalid("action must be up to 64 characters of dotted lower-case words, e.g. merchant.activate");
  }
  if (input.targetType.length > 32 || !TARGET_TYPE.test(input.targetType)) {
    invalid("target_type must be up to 32 characters of a-z, 0-9 and '_', starting with a letter");
  }
  const targetUuid = input.targetUuid === "" ? null : checkUuid("target_uuid", input.targetUuid);
  let errorCode: string | null = null;
  if (input.outcome === "failed") {
    if (input.errorCode.length > 64 || !ERROR_CODE.test(input.errorCode)) {
      invalid("error_code must be an UPPER_SNAKE code of up to 64 characters when the outcome is failed");
    }
    errorCode = input.errorCode;
  } else if (input.outcome === "succeeded") {
    if (input.errorCode !== "") invalid("error_code must be empty when the outcome is succeeded");
  } else {
    invalid("outcome must be one of: succeeded, failed");
  }
  return {
    eventUuid,
    actor,
    action: input.action,
    targetType: input.targetType,
    targetUuid,
    outcome: input.outcome,
    errorCode,
    occurredAt: now,
  };
}

/**
 * Appends an event sent by another component. The service assigns the event
 * uuid (UUIDv7) and the time; those fields of the request are ignored.
 */
export async function recordAuditEvent(deps: Deps, input: AuditEventInput | undefined): Promise<AuditEvent> {
  if (!input) invalid("event is required");
  const event = newAuditEvent(input, deps.newUuid(), deps.now());
  await deps.uow.read().audit.append(event);
  return event;
}

/** An operating-system user name as the operator CLI reports it (@payin/rpc's operatorOsUser). */
const OS_USER = /^[A-Za-z0-9._@-]{1,64}$/;

/** At most this many events in one AppendAuditEvents. */
export const APPEND_BATCH_MAX = 100;

/** An event another service recorded with its own change, as AppendAuditEvents receives it. */
export interface RecordedEventInput extends AuditEventInput {
  eventUuid: string;
  occurredAt: Date | undefined;
}

/**
 * Validates an event the identity service recorded in its outbox with its own
 * change: the fields of newAuditEvent, with the event's own uuid, time and
 * actor (identity is the authority on who acted in its changes). The OS user
 * goes with the operator CLI (required for `operator_cli`, optional for an
 * identity acting through it), never with the system or a machine credential.
 */
export function recordedAuditEvent(input: RecordedEventInput): AuditEvent {
  const eventUuid = checkUuid("event_uuid", input.eventUuid);
  if (!input.occurredAt || Number.isNaN(input.occurredAt.getTime())) invalid("occurred_at is required");
  if (!input.actor) invalid("actor is required");
  const osUser = input.actor.osUser ?? "";
  if (osUser !== "" && !OS_USER.test(osUser)) invalid("actor.os_user must be 1 to 64 of A-Z, a-z, 0-9, '.', '_', '@', '-'");
  const kind = input.actor.kind;
  if (kind === "operator_cli" && osUser === "") invalid("actor.os_user is required for actor.kind operator_cli");
  if ((kind === "system" || kind === "machine_credential") && osUser !== "") invalid(`actor.os_user must be empty for actor.kind ${kind}`);
  return newAuditEvent({ ...input, actor: { ...input.actor, osUser: osUser === "" ? null : osUser } }, eventUuid, input.occurredAt);
}

/**
 * Appends events another service recorded with its changes (AppendAuditEvents),
 * each with its own uuid, time and actor, in one transaction. All are checked
 * before any is kept; one already in the log is skipped (a repeated delivery).
 * Answers how many were new.
 */
export async function appendAuditEvents(deps: Deps, inputs: readonly RecordedEventInput[]): Promise<number> {
  if (inputs.length > APPEND_BATCH_MAX) invalid(`events must be at most ${APPEND_BATCH_MAX}`);
  const events = inputs.map(recordedAuditEvent);
  if (events.length === 0) return 0;
  return deps.uow.transaction(async (stores) => {
    let appended = 0;
    for (const event of events) if (await stores.audit.appendIfNew(event)) appended++;
    return appended;
  });
}

/** A succeeded event for a change this service made itself. */
export function changeEvent(
  actor: Actor,
  change: { action: string; targetType: string; targetUuid: string },
  eventUuid: string,
  now: Date,
): AuditEvent {
  return { eventUuid, actor, ...change, outcome: "succeeded", errorCode: null, occurredAt: now };
}

/** An audit filter as a caller sends it: absent fields filter nothing. */
export interface AuditFilterInput {
  action?: string;
  targetType?: string;
  targetUuid?: string;
  actorKind?: string;
  actorUuid?: string;
  outcome?: string;
}

/**
 * Checks a listing's filters: INVALID_ARGUMENT for a uuid filter that is not a
 * uuid, an unknown actor kind or outcome, or an action or target type no event
 * can have (so a typo is said, not answered with an empty page).
 */
export function checkAuditFilter(input: AuditFilterInput): AuditFilter {
  const filter: AuditFilter = {};
  if (input.action !== undefined) {
    if (input.action.length > 64 || !ACTION.test(input.action)) invalid("action must be dotted lower-case words, e.g. merchant.activate");
    filter.action = input.action;
  }
  if (input.targetType !== undefined) {
    if (input.targetType.length > 32 || !TARGET_TYPE.test(input.targetType)) invalid("target_type must be a lower-case word, e.g. merchant");
    filter.targetType = input.targetType;
  }
  if (input.targetUuid !== undefined) filter.targetUuid = checkUuid("target_uuid", input.targetUuid);
  if (input.actorKind !== undefined) {
    if (!(ACTOR_KINDS as readonly string[]).includes(input.actorKind)) invalid(`actor_kind must be one of: ${ACTOR_KINDS.join(", ")}`);
    filter.actorKind = input.actorKind as ActorKind;
  }
  if (input.actorUuid !== undefined) filter.actorUuid = checkUuid("actor_uuid", input.actorUuid);
  if (input.outcome !== undefined) {
    if (input.outcome !== "succeeded" && input.outcome !== "failed") invalid("outcome must be one of: succeeded, failed");
    filter.outcome = input.outcome;
  }
  return filter;
}

/** Reads a page of the audit log, newest first, filtered by `filter`. */
export async function listAuditEvents(
  store: AuditStore,
  page: { limit: number; offset: number },
  filter: AuditFilterInput = {},
): Promise<{ events: AuditEvent[]; total: number }> {
  const checkedPage = checkPage(page.limit, page.offset);
  return store.list(checkedPage, checkAuditFilter(filter));
}
