import { prepared, sql, type Queryable } from "@payin/db";
import type { EventType } from "@payin/events";
import type { OutboxEvent } from "../events/outbox-events.js";

/**
 * Payins' event outbox (`event_outbox`): events are written by the change's
 * own transaction (writeEvents), claimed oldest first by the relay, and
 * deleted once notifications acknowledged them. An event notifications refuses
 * is moved into `event_outbox_refused` instead (setAside).
 */

const COLUMNS = `event_uuid, merchant_uuid, type, sequence, intent_uuid, checkout_uuid, created_at, data`;

const INSERT_EVENTS = prepared(
  "payins.event-outbox-insert",
  `insert into event_outbox (${COLUMNS})
       select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::uuid[], $6::uuid[], $7::timestamptz[], $8::text[])`,
);

interface OutboxRow {
  event_uuid: string;
  merchant_uuid: string;
  type: EventType;
  sequence: string;
  intent_uuid: string | null;
  checkout_uuid: string | null;
  created_at: string | Date;
  data: string;
}

/** Whether anything waits: the relay's cheap look before it opens a transaction. */
const ANY = sql<{ one: number }>(`select 1 as one from event_outbox limit 1`);
/** The oldest waiting (UUIDv7 ids sort by time), locked; rows another relay holds are skipped. */
const CLAIM = sql<OutboxRow>(`select ${COLUMNS} from event_outbox order by event_uuid limit $1 for update skip locked`);
const DELETE = sql(`delete from event_outbox where event_uuid = any($1::uuid[])`);
/** Out of the outbox and into the refused, in one statement; refused again (put back by an operator), its row is replaced. */
const SET_ASIDE = sql(
  `with moved as (delete from event_outbox where event_uuid = $1 returning ${COLUMNS})
   insert into event_outbox_refused (${COLUMNS}, refused_at, refusal_message)
     select ${COLUMNS}, now(), $2 from moved
   on conflict (event_uuid) do update set
     merchant_uuid = excluded.merchant_uuid, type = excluded.type, sequence = excluded.sequence,
     intent_uuid = excluded.intent_uuid, checkout_uuid = excluded.checkout_uuid, created_at = excluded.created_at,
     data = excluded.data, refused_at = excluded.refused_at, refusal_message = excluded.refusal_message`,
);

/** The events as the eight arrays an insert from unnest takes, in COLUMNS' order. */
export function outboxColumns(events: readonly OutboxEvent[]): unknown[] {
  const column = <T>(pick: (e: OutboxEvent) => T) => events.map(pick);
  return [
    column((e) => e.eventUuid), column((e) => e.merchantUuid), column((e) => e.type), column((e) => e.sequence),
    column((e) => e.intentUuid), column((e) => e.checkoutUuid), column((e) => e.createdAt), column((e) => e.data),
  ];
}

/** Writes events (in the caller's transaction). */
export async function writeEvents(q: Queryable, events: readonly OutboxEvent[]): Promise<void> {
  if (events.length > 0) await q.query(INSERT_EVENTS, outboxColumns(events));
}

export async function anyWaiting(q: Queryable): Promise<boolean> {
  return (await q.query(ANY)).length > 0;
}

/** Up to `limit` events, oldest first, locked until the transaction ends. */
export async function claimOldest(q: Queryable, limit: number): Promise<OutboxEvent[]> {
  const rows = await q.query(CLAIM, [limit]);
  return rows.map((r) => ({
    eventUuid: r.event_uuid,
    merchantUuid: r.merchant_uuid,
    type: r.type,
    sequence: Number(r.sequence),
    intentUuid: r.intent_uuid,
    checkoutUuid: r.checkout_uuid,
    createdAt: new Date(r.created_at),
    data: r.data,
  }));
}

export async function deleteEvents(q: Queryable, eventUuids: readonly string[]): Promise<void> {
  if (eventUuids.length > 0) await q.query(DELETE, [eventUuids]);
}

/** Moves an event notifications refused out of the outbox into `event_outbox_refused`, with what it said (in the caller's transaction). */
export async function setAside(q: Queryable, eventUuid: string, refusalMessage: string): Promise<void> {
  await q.query(SET_ASIDE, [eventUuid, refusalMessage]);
}
