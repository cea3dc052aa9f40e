import { prepared, sql, type Queryable } from "@payin/db";
import type { EventQuery, EventStore, StoredEvent } from "../domain/model.js";

const COLUMNS = `event_uuid, merchant_uuid, type, sequence, intent_uuid, checkout_uuid, created_at, recorded_at, data, test`;
const E_COLUMNS = COLUMNS.split(", ").map((c) => `e.${c}`).join(", ");

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

// One statement for a whole batch: the events as arrays; each new one inserted, those kept before skipped.
// Each new listed event takes the next position of its merchant, in the batch's order: the merchant's
// counter row is bumped (merchants in uuid order, so two batches never wait for each other in a cycle)
// and stays locked until the transaction ends, so a later batch of the merchant takes higher positions
// and commits after this one. Test events have none. An event a concurrent batch inserted first is
// skipped by the conflict and leaves a gap in its merchant's positions; positions only order.
// Prepared: RecordEvents runs it for every batch payins hands over.
const INSERT_NEW = prepared<{ event_uuid: string }>("notifications_events_insert_new", `
  with batch as (
    select * from unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::uuid[], $6::uuid[], $7::timestamptz[], $8::timestamptz[], $9::text[], $10::boolean[])
      with ordinality as b (event_uuid, merchant_uuid, type, sequence, intent_uuid, checkout_uuid, created_at, recorded_at, data, test, ord)
  ), fresh as (
    select b.*, row_number() over (partition by b.merchant_uuid, b.test order by b.ord) as nth
      from batch b
     where not exists (select 1 from events e where e.event_uuid = b.event_uuid)
  ), counts as (
    select merchant_uuid, count(*) as n from fresh where not test group by merchant_uuid
  ), taken as (
    insert into merchant_event_positions as p (merchant_uuid, last)
    select merchant_uuid, n from counts order by merchant_uuid
    on conflict (merchant_uuid) do update set last = p.last + excluded.last
    returning merchant_uuid, last
  )
  insert into events (${COLUMNS}, position)
  select f.event_uuid, f.merchant_uuid, f.type, f.sequence, f.intent_uuid, f.checkout_uuid, f.created_at, f.recorded_at, f.data, f.test,
         case when f.test then null else t.last - c.n + f.nth end
    from fresh f
    left join counts c on c.merchant_uuid = f.merchant_uuid and not f.test
    left join taken t on t.merchant_uuid = f.merchant_uuid and not f.test
   order by f.ord
  on conflict (event_uuid) do nothing
  returning event_uuid`);

const GET = sql<EventRow>(`
  select ${COLUMNS} from events
   where merchant_uuid = $1 and event_uuid = $2 and created_at >= $3 and ($4 or not test)`);

// Oldest first by position: the order the events were recorded in, which is the order they became
// visible, so a cursor never passes an event still to come. `after` is one of the merchant's listed
// events (its position); any other id (a test event's, another merchant's, one purged) lists the
// events whose id is greater, still by position.
const LIST = sql<EventRow>(`
  with cursor as (
    select (select position from events where merchant_uuid = $1 and event_uuid = $3 and not test) as position
  )
  select ${E_COLUMNS} from events e, cursor
   where e.merchant_uuid = $1 and not e.test and e.created_at >= $2
     and e.position > coalesce(cursor.position, 0)
     and ($3::uuid is null or cursor.position is not null or e.event_uuid > $3)
     and (cardinality($4::text[]) = 0 or e.type = any($4::text[]))
     and ($5::uuid is null or e.intent_uuid = $5)
   order by e.position
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
