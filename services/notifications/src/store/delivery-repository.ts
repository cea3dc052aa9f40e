import { dateOrNull, prepared, sql, type Queryable } from "@payin/db";
import type { Delivery, DeliveryAttempt, DeliveryQuery, DeliveryStatus, DeliveryStore, NewDelivery } from "../domain/model.js";

const COLUMNS = `delivery_uuid, event_uuid, endpoint_uuid, merchant_uuid, event_type, status, attempt_count, round_attempts, next_attempt_at, created_at, updated_at`;
const D_COLUMNS = COLUMNS.split(", ").map((c) => `d.${c}`).join(", ");

interface DeliveryRow {
  delivery_uuid: string;
  event_uuid: string;
  endpoint_uuid: string;
  merchant_uuid: string;
  event_type: string;
  status: DeliveryStatus;
  attempt_count: number;
  round_attempts: number;
  next_attempt_at: string | Date | null;
  created_at: string | Date;
  updated_at: string | Date;
}

function toDelivery(r: DeliveryRow): Delivery {
  return {
    deliveryUuid: r.delivery_uuid,
    eventUuid: r.event_uuid,
    endpointUuid: r.endpoint_uuid,
    merchantUuid: r.merchant_uuid,
    eventType: r.event_type,
    status: r.status,
    attemptCount: r.attempt_count,
    roundAttempts: r.round_attempts,
    nextAttemptAt: dateOrNull(r.next_attempt_at),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

interface AttemptRow {
  delivery_uuid: string;
  attempted_at: string | Date;
  status_code: number;
  duration_ms: number;
  response_excerpt: string;
  error: string;
}

// One statement for a whole batch: every (event, endpoint) that has no delivery yet gets one, pending and due.
// Prepared: RecordEvents runs it for every batch with new deliveries.
const INSERT_NEW = prepared<DeliveryRow>("notifications_deliveries_insert_new", `
  insert into deliveries (delivery_uuid, event_uuid, endpoint_uuid, merchant_uuid, event_type, status, next_attempt_at, created_at, updated_at)
  select u, ev, ep, m, t, 'pending', due, at, at
    from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::timestamptz[], $7::timestamptz[]) as n(u, ev, ep, m, t, due, at)
  on conflict (event_uuid, endpoint_uuid) do nothing
  returning ${COLUMNS}`);

const LIST = sql<DeliveryRow>(`
  select ${COLUMNS} from deliveries
   where merchant_uuid = $1
     and ($2::uuid is null or endpoint_uuid = $2)
     and ($3::uuid is null or event_uuid = $3)
     and ($4::text is null or status = $4)
     and ($5::timestamptz is null or (created_at, delivery_uuid) < ($5, $6::uuid))
   order by created_at desc, delivery_uuid desc
   limit $7`);

const GET = sql<DeliveryRow>(`select ${COLUMNS} from deliveries where merchant_uuid = $1 and delivery_uuid = $2`);
const ATTEMPTS = sql<AttemptRow>(`
  select delivery_uuid, attempted_at, status_code, duration_ms, response_excerpt, error
    from delivery_attempts where delivery_uuid = any($1::uuid[])
   order by attempted_at, attempt_uuid`);
const OF_EVENT = sql<DeliveryRow>(`select ${COLUMNS} from deliveries where event_uuid = $1 order by created_at, delivery_uuid`);
const RESTART = sql<DeliveryRow>(`
  update deliveries set status = 'pending', round_attempts = 0, next_attempt_at = $2, updated_at = $2
   where delivery_uuid = any($1::uuid[])
  returning ${COLUMNS}`);
// Failed: given up, or waiting for a retry after a failed attempt of the current round.
const RESTART_FAILED = sql<DeliveryRow>(`
  update deliveries d set status = 'pending', round_attempts = 0, next_attempt_at = $3, updated_at = $3
    from events e
   where d.endpoint_uuid = $1 and e.event_uuid = d.event_uuid and e.created_at >= $2
     and (d.status = 'failed' or (d.status = 'pending' and d.round_attempts > 0))
  returning ${D_COLUMNS}`);
const PENDING_OF = sql<{ delivery_uuid: string }>(`select delivery_uuid from deliveries where endpoint_uuid = $1 and status = 'pending' for update`);

/** DeliveryStore on PostgreSQL (`deliveries`, `delivery_attempts`). */
export class DeliveryRepository implements DeliveryStore {
  constructor(private readonly db: Queryable) {}

  async insertNew(deliveries: readonly NewDelivery[]): Promise<Delivery[]> {
    if (deliveries.length === 0) return [];
    const rows = await this.db.query(INSERT_NEW, [
      deliveries.map((d) => d.deliveryUuid),
      deliveries.map((d) => d.eventUuid),
      deliveries.map((d) => d.endpointUuid),
      deliveries.map((d) => d.merchantUuid),
      deliveries.map((d) => d.eventType),
      deliveries.map((d) => d.nextAttemptAt.toISOString()),
      deliveries.map((d) => d.createdAt.toISOString()),
    ]);
    return rows.map(toDelivery);
  }

  async list(q: DeliveryQuery): Promise<Delivery[]> {
    const rows = await this.db.query(LIST, [q.merchantUuid, q.endpointUuid, q.eventUuid, q.status, q.before?.createdAt ?? null, q.before?.deliveryUuid ?? null, q.limit]);
    return rows.map(toDelivery);
  }

  async get(merchantUuid: string, deliveryUuid: string): Promise<Delivery | null> {
    const [row] = await this.db.query(GET, [merchantUuid, deliveryUuid]);
    return row ? toDelivery(row) : null;
  }

  async attemptsOf(deliveryUuids: readonly string[]): Promise<Map<string, DeliveryAttempt[]>> {
    const out = new Map<string, DeliveryAttempt[]>();
    if (deliveryUuids.length === 0) return out;
    for (const r of await this.db.query(ATTEMPTS, [deliveryUuids])) {
      const list = out.get(r.delivery_uuid) ?? [];
      list.push({ attemptedAt: new Date(r.attempted_at), statusCode: r.status_code, durationMs: r.duration_ms, responseExcerpt: r.response_excerpt, error: r.error });
      out.set(r.delivery_uuid, list);
    }
    return out;
  }

  async ofEvent(eventUuid: string): Promise<Delivery[]> {
    return (await this.db.query(OF_EVENT, [eventUuid])).map(toDelivery);
  }

  async restart(deliveryUuids: readonly string[], now: Date): Promise<Delivery[]> {
    if (deliveryUuids.length === 0) return [];
    return (await this.db.query(RESTART, [deliveryUuids, now])).map(toDelivery);
  }

  async restartFailed(endpointUuid: string, since: Date, now: Date): Promise<Delivery[]> {
    return (await this.db.query(RESTART_FAILED, [endpointUuid, since, now])).map(toDelivery);
  }

  async pendingOf(endpointUuid: string): Promise<string[]> {
    return (await this.db.query(PENDING_OF, [endpointUuid])).map((r) => r.delivery_uuid);
  }
}
