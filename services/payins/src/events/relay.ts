import { create } from "@bufbuild/protobuf";
import type { Database } from "@payin/db";
import { notificationsV1 } from "@payin/proto";
import { Code, ConnectError, toTimestamp } from "@payin/rpc";
import { anyWaiting, claimOldest, deleteEvents, setAside } from "../store/event-outbox.js";
import { startLoop, type Loop, type LoopLogger } from "./background-loop.js";
import type { OutboxEvent } from "./outbox-events.js";

/** Most events per RecordEvents call (the contract's most). */
export const RELAY_BATCH = 1000;
/** Between looks at an empty outbox: well under the second an event may take from its commit to notifications. */
export const RELAY_IDLE_MS = 100;

/** An outbox event as notifications' contract has it. */
export function eventToPb(e: OutboxEvent): notificationsV1.Event {
  return create(notificationsV1.EventSchema, {
    eventUuid: e.eventUuid,
    merchantUuid: e.merchantUuid,
    type: e.type,
    createdAt: toTimestamp(e.createdAt),
    sequence: BigInt(e.sequence),
    intentUuid: e.intentUuid ?? undefined,
    checkoutUuid: e.checkoutUuid ?? undefined,
    dataJson: e.data,
  });
}

/** Notifications' RecordEvents (idempotent by event uuid). */
export type RecordEvents = (events: notificationsV1.Event[]) => Promise<void>;

/**
 * What a failed RecordEvents means for the events sent: `refused` when
 * notifications will not take them as they are (INVALID_ARGUMENT: one is
 * malformed or of a type it does not know yet; the batch is then refused
 * whole), `retry` for anything else (notifications down or slow, a lost
 * answer): the events stay in the outbox and are sent again.
 */
export type RecordFailure = { kind: "refused"; message: string } | { kind: "retry" };

export function recordFailure(error: unknown): RecordFailure {
  if (error instanceof ConnectError && error.code === Code.InvalidArgument) return { kind: "refused", message: error.rawMessage };
  return { kind: "retry" };
}

/** An event notifications refused, set aside in `event_outbox_refused`: what may be logged of it (never its data). */
export interface RefusedEvent {
  eventUuid: string;
  type: string;
  /** What notifications said. */
  message: string;
}

/**
 * One pass of the relay: claims up to `batch` events oldest first (`for update
 * skip locked`, in a transaction that ends only after notifications answered,
 * so the relays of several replicas never send one event at the same time),
 * hands them to RecordEvents and deletes them. A failure (notifications down,
 * a lost answer, a crash) leaves them to a later pass; sending one again is
 * harmless. When notifications refuses the batch (recordFailure), its events
 * are sent one at a time, oldest first: each it refuses alone is moved to
 * `event_outbox_refused` (in this transaction) and told to `onRefused` once
 * the transaction committed; the others are handed over. Answers how many
 * events left the outbox.
 */
export async function relayOnce(
  db: Database,
  record: RecordEvents,
  batch = RELAY_BATCH,
  onRefused: (event: RefusedEvent) => void = () => {},
): Promise<number> {
  // A look without a transaction first: an empty outbox, the usual case, costs one cheap statement.
  if (!(await anyWaiting(db))) return 0;
  let refused: RefusedEvent[] = [];
  const taken = await db.transaction(async (trx) => {
    refused = [];
    const events = await claimOldest(trx, batch);
    if (events.length === 0) return 0;
    try {
      await record(events.map(eventToPb));
    } catch (error) {
      if (recordFailure(error).kind === "retry") throw error;
      for (const event of events) {
        try {
          await record([eventToPb(event)]);
        } catch (alone) {
          const failure = recordFailure(alone);
          if (failure.kind === "retry") throw alone;
          await setAside(trx, event.eventUuid, failure.message);
          refused.push({ eventUuid: event.eventUuid, type: event.type, message: failure.message });
        }
      }
    }
    await deleteEvents(trx, events.map((e) => e.eventUuid));
    return events.length;
  });
  for (const event of refused) onRefused(event);
  return taken;
}

export interface EventRelayOptions {
  db: Database;
  record: RecordEvents;
  /** Also logs (error) each event notifications refused. */
  logger: LoopLogger & { error(fields: object, message: string): void };
  idleMs?: number;
  batch?: number;
  /** Backoff while notifications fails: from this (default 250 ms)… */
  minBackoffMs?: number;
  /** …doubling up to this (default 10 s). */
  maxBackoffMs?: number;
}

/**
 * Starts the relay in this process: passes back to back while the outbox is
 * full, every `idleMs` while it is empty (`wake` runs one at once, e.g. after
 * a commit of this process), backing off while notifications does not answer,
 * and logging each event notifications refused (set aside) once.
 */
export function startEventRelay(options: EventRelayOptions): Loop {
  const batch = options.batch ?? RELAY_BATCH;
  const onRefused = ({ eventUuid, type, message }: RefusedEvent) =>
    options.logger.error(
      { eventUuid, type, reason: message, alert: true },
      "notifications refused an event: it is set aside in event_outbox_refused and the events after it go on (docs/operations.md)",
    );
  return startLoop({
    pass: async () => (await relayOnce(options.db, options.record, batch, onRefused)) === batch,
    idleMs: options.idleMs ?? RELAY_IDLE_MS,
    minBackoffMs: options.minBackoffMs ?? 250,
    maxBackoffMs: options.maxBackoffMs ?? 10_000,
    logger: options.logger,
    failing: "the event relay could not hand events to notifications; they stay in the outbox and are sent once it answers",
    recovered: "the event relay hands events to notifications again",
  });
}
