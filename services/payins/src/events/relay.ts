import { create } from "@bufbuild/protobuf";
import type { Database } from "@payin/db";
import { notificationsV1 } from "@payin/proto";
import { toTimestamp } from "@payin/rpc";
import { anyWaiting, claimOldest, deleteEvents } from "../store/event-outbox.js";
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
 * One pass of the relay: claims up to `batch` events oldest first (`for update
 * skip locked`, in a transaction that ends only after notifications answered,
 * so the relays of several replicas never send one event at the same time),
 * hands them to RecordEvents and deletes them. A failure (notifications down,
 * a lost answer, a crash) leaves them to a later pass; sending one again is
 * harmless. Answers how many were handed over.
 */
export async function relayOnce(db: Database, record: RecordEvents, batch = RELAY_BATCH): Promise<number> {
  // A look without a transaction first: an empty outbox, the usual case, costs one cheap statement.
  if (!(await anyWaiting(db))) return 0;
  return db.transaction(async (trx) => {
    const events = await claimOldest(trx, batch);
    if (events.length === 0) return 0;
    await record(events.map(eventToPb));
    await deleteEvents(trx, events.map((e) => e.eventUuid));
    return events.length;
  });
}

export interface EventRelayOptions {
  db: Database;
  record: RecordEvents;
  logger: LoopLogger;
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
 * a commit of this process), backing off while notifications does not answer.
 */
export function startEventRelay(options: EventRelayOptions): Loop {
  const batch = options.batch ?? RELAY_BATCH;
  return startLoop({
    pass: async () => (await relayOnce(options.db, options.record, batch)) === batch,
    idleMs: options.idleMs ?? RELAY_IDLE_MS,
    minBackoffMs: options.minBackoffMs ?? 250,
    maxBackoffMs: options.maxBackoffMs ?? 10_000,
    logger: options.logger,
    failing: "the event relay could not hand events to notifications; they stay in the outbox and are sent once it answers",
    recovered: "the event relay hands events to notifications again",
  });
}
