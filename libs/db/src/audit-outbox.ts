/**
 * A service's audit outbox: the records of its changes, each written in the
 * change's own transaction (no change without its record), waiting for the
 * relay to send them to the merchants service's audit log, which keeps each
 * once by its uuid. The table is `audit_outbox` in the service's own schema
 * (the columns of merchants' audit_events; each service's migration makes it).
 *
 * The relay claims a batch oldest first with `for update skip locked` in a
 * transaction that ends only after merchants answered: the relays of several
 * replicas never send one record at once, and a record whose delivery failed
 * (merchants down, a lost answer, a crash) stays and goes again on a later
 * pass; sending one again is harmless.
 */
import { sql, type Database, type Queryable } from "./database.js";

export type OutboxActorKind = "identity" | "operator_cli" | "system";

/** One record waiting in the outbox: the columns of merchants' audit_events, outcome always `succeeded`. */
export interface OutboxEvent {
  eventUuid: string;
  actorKind: OutboxActorKind;
  /** The person's identity uuid for `identity`; null otherwise. */
  actorUuid: string | null;
  /** The OS user the operator CLI reported, when it asked. */
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
   * records another transaction holds are skipped.
   */
  claimOldest(limit: number): Promise<OutboxEvent[]>;
  /** Removes delivered records. */
  delete(eventUuids: readonly string[]): Promise<void>;
}

const COLUMNS = `event_uuid, actor_kind, actor_uuid, actor_os_user, request_id, action, target_type, target_uuid, occurred_at`;

interface OutboxRow {
  event_uuid: string;
  actor_kind: OutboxActorKind;
  actor_uuid: string | null;
  actor_os_user: string | null;
  request_id: string | null;
  action: string;
  target_type: string;
  target_uuid: string | null;
  occurred_at: string | Date;
}

const INSERT = sql(`insert into audit_outbox (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`);
const CLAIM = sql<OutboxRow>(`select ${COLUMNS} from audit_outbox order by occurred_at, event_uuid limit $1 for update skip locked`);
const DELETE = sql(`delete from audit_outbox where event_uuid = any($1::uuid[])`);

/** AuditOutboxStore on PostgreSQL: the `audit_outbox` table of the schema `db` reaches. */
export class AuditOutboxRepository implements AuditOutboxStore {
  constructor(private readonly db: Queryable) {}

  async insert(e: OutboxEvent): Promise<void> {
    await this.db.query(INSERT, [e.eventUuid, e.actorKind, e.actorUuid, e.actorOsUser, e.requestId, e.action, e.targetType, e.targetUuid, e.occurredAt]);
  }

  async claimOldest(limit: number): Promise<OutboxEvent[]> {
    const rows = await this.db.query(CLAIM, [limit]);
    return rows.map((r) => ({
      eventUuid: r.event_uuid,
      actorKind: r.actor_kind,
      actorUuid: r.actor_uuid,
      actorOsUser: r.actor_os_user,
      requestId: r.request_id,
      action: r.action,
      targetType: r.target_type,
      targetUuid: r.target_uuid,
      occurredAt: new Date(r.occurred_at),
    }));
  }

  async delete(eventUuids: readonly string[]): Promise<void> {
    if (eventUuids.length > 0) await this.db.query(DELETE, [eventUuids]);
  }
}

export interface AuditRelayOptions {
  db: Database;
  /** Merchants' AppendAuditEvents. */
  append: (events: OutboxEvent[]) => Promise<void>;
  /** Where an outage of delivery is reported, once per outage. */
  logger: { warn(fields: object, message: string): void; info(message: string): void };
  /** Between passes when the outbox was drained (default 500 ms); a full batch is followed at once by the next. */
  intervalMs?: number;
  /** Records per pass (default 100, merchants' most). */
  batchSize?: number;
}

export interface AuditRelay {
  /** One pass: claims, sends and deletes up to a batch; answers how many were delivered. */
  runOnce(): Promise<number>;
  /** Stops the loop and waits for a pass in progress. */
  stop(): Promise<void>;
}

export const RELAY_INTERVAL_MS = 500;
export const RELAY_BATCH_SIZE = 100;

/** One pass of the relay on `db` (see the module's comment). */
export async function relayOnce(db: Database, append: (events: OutboxEvent[]) => Promise<void>, batchSize = RELAY_BATCH_SIZE): Promise<number> {
  return db.transaction(async (tx) => {
    const outbox = new AuditOutboxRepository(tx);
    const events = await outbox.claimOldest(batchSize);
    if (events.length === 0) return 0;
    await append(events);
    await outbox.delete(events.map((e) => e.eventUuid));
    return events.length;
  });
}

/**
 * Starts the relay's loop: a pass now, then after every pass that left the
 * outbox drained (or failed), another `intervalMs` later. A failed pass is
 * logged (a warning) and retried on the next.
 */
export function startAuditRelay(options: AuditRelayOptions): AuditRelay {
  const intervalMs = options.intervalMs ?? RELAY_INTERVAL_MS;
  const batchSize = options.batchSize ?? RELAY_BATCH_SIZE;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let failing = false;
  const runOnce = () => relayOnce(options.db, options.append, batchSize);
  const pass = async () => {
    let full = false;
    try {
      full = (await runOnce()) === batchSize;
      if (failing) options.logger.info("audit outbox relay delivers again");
      failing = false;
    } catch (err) {
      // Logged once per outage, not once per pass.
      if (!failing) options.logger.warn({ err }, "audit outbox relay could not deliver; the records stay queued");
      failing = true;
    }
    if (!stopped) timer = setTimeout(tick, full ? 0 : intervalMs);
  };
  const tick = () => {
    running = pass();
  };
  tick();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
