import { sql, type Queryable } from "@payin/db";
import type { AuditOutboxStore, OutboxActorKind, OutboxEvent } from "../domain/audit-outbox.js";

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

/** AuditOutboxStore on PostgreSQL (identity.audit_outbox). */
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
