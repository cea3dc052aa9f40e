import { prepared, sql, type Queryable } from "@payin/db";
import type { EventQuery, EventStore, StoredEvent } from "../domain/model.js";

const COLUMNS = `event_uuid, merchant_uuid, type, sequence, intent_uuid, checkout_uuid, created_at, recorded_at, data, test`;

interface EventRow {
  event_uuid: string;
  merchant_uuid: string;
  type: string;
  sequence: string;
  intent_uuid: string | null;
  checkout_uuid: string | null;
  created_at: string | Date;
  recorded_at: string | Date;
  data: string;
  test: boolean;
}

function toEvent(r: EventRow): StoredEvent {
  return {
    eventUuid: r.event_uuid,
    merchantUuid: r.merchant_uuid,
    type: r.type,
    sequence: Number(r.sequence),
    intentUuid: r.intent_uuid,
    checkoutUuid: r.checkout_uuid,
    createdAt: new Date(r.created_at),
    recordedAt: new Date(r.recorded_at),
    data: r.data,
    test: r.test,
  };
}

// One statement for a whole batch: the events as arrays, each new one inserted, those kept before skipped.
// Prepared: RecordEvents runs it for every batch payins hands over.
const INSERT_NEW = prepared<{ event_uuid: string }>("notifications_events_insert_new", `
  insert into events (${COLUMNS})
  select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::uuid[], $6::uuid[], $7::timestamptz[], $8::timestamptz[], $9::text[], $10::boolean[])
  on conflict (event_uuid) do nothing
  returning event_uuid`);

const GET = sql<EventRow>(`
  select ${COLUMNS} from events
   where merchant_uuid = $1 and event_uuid = $2 and created_at >= $3 and ($4 or not test)`);

const LIST = sql<EventRow>(`
  select ${COLUMNS} from events
   where merchant_uuid = $1 and not test and created_at >= $2
     and ($3::uuid is null or event_uuid > $3)
     and (cardinality($4::text[]) = 0 or type = any($4::text[]))
     and ($5::uuid is null or intent_uuid = $5)
   order by event_uuid
   limit $6`);

const PURGE = sql<{ event_uuid: string }>(`
  delete from events where event_uuid in (select event_uuid from events where created_at < $1 order by created_at limit $2)
  returning event_uuid`);

/** EventStore on PostgreSQL (`events`). */
export class EventRepository implements EventStore {
  constructor(private readonly db: Queryable) {}

  async insertNew(events: readonly StoredEvent[]): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    const rows = await this.db.query(INSERT_NEW, [
      events.map((e) => e.eventUuid),
      events.map((e) => e.merchantUuid),
      events.map((e) => e.type),
      events.map((e) => String(e.sequence)),
      events.map((e) => e.intentUuid),
      events.map((e) => e.checkoutUuid),
      events.map((e) => e.createdAt.toISOString()),
      events.map((e) => e.recordedAt.toISOString()),
      events.map((e) => e.data),
      events.map((e) => e.test),
    ]);
    const inserted = new Set(rows.map((r) => r.event_uuid));
    return events.filter((e) => inserted.has(e.eventUuid));
  }

  async get(merchantUuid: string, eventUuid: string, since: Date, includeTest: boolean): Promise<StoredEvent | null> {
    const [row] = await this.db.query(GET, [merchantUuid, eventUuid, since, includeTest]);
    return row ? toEvent(row) : null;
  }

  async list(q: EventQuery): Promise<StoredEvent[]> {
    return (await this.db.query(LIST, [q.merchantUuid, q.since, q.after, q.types, q.intentUuid, q.limit])).map(toEvent);
  }

  async purge(before: Date, limit: number): Promise<number> {
    return (await this.db.query(PURGE, [before, limit])).length;
  }
}
