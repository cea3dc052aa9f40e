import { found, sql, type Nullable, type Queryable } from "@payin/db";
import type { ActorKind, AuditEvent, AuditFilter, AuditOutcome, AuditStore } from "../domain/audit.js";

const COLUMNS = `event_uuid, actor_kind, actor_uuid, request_id, action, target_type, target_uuid, outcome, error_code, occurred_at, actor_os_user`;

interface AuditRow {
  event_uuid: string;
  actor_kind: ActorKind;
  actor_uuid: string | null;
  request_id: string | null;
  action: string;
  target_type: string;
  target_uuid: string | null;
  outcome: AuditOutcome;
  error_code: string | null;
  occurred_at: string;
  actor_os_user: string | null;
}

function fromRow(row: AuditRow): AuditEvent {
  return {
    eventUuid: row.event_uuid,
    actor: { kind: row.actor_kind, uuid: row.actor_uuid, requestId: row.request_id, osUser: row.actor_os_user },
    action: row.action,
    targetType: row.target_type,
    targetUuid: row.target_uuid,
    outcome: row.outcome,
    errorCode: row.error_code,
    occurredAt: new Date(row.occurred_at),
  };
}

const APPEND = sql(`insert into audit_events (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`);

/** Appends unless the event_uuid is in the log (a repeated delivery): nothing else conflicts. */
const APPEND_IF_NEW = sql<{ event_uuid: string }>(`insert into audit_events (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) on conflict (event_uuid) do nothing returning event_uuid`);

/** An event's values in COLUMNS order. */
function rowOf(event: AuditEvent): unknown[] {
  const { actor } = event;
  return [event.eventUuid, actor.kind, actor.uuid, actor.requestId, event.action, event.targetType, event.targetUuid, event.outcome, event.errorCode, event.occurredAt, actor.osUser];
}

/** AuditStore on PostgreSQL: an append-only table (a trigger refuses updates and deletes). */
export class AuditRepository implements AuditStore {
  constructor(private readonly db: Queryable) {}

  async append(event: AuditEvent): Promise<void> {
    await this.db.query(APPEND, rowOf(event));
  }

  async appendIfNew(event: AuditEvent): Promise<boolean> {
    const rows = await this.db.query(APPEND_IF_NEW, rowOf(event));
    return rows.length === 1;
  }

  async list(page: { limit: number; offset: number }, filter: AuditFilter): Promise<{ events: AuditEvent[]; total: number }> {
    // Each filter given is one equality; the same conditions count and page.
    const conditions: string[] = [];
    const values: unknown[] = [];
    const columns: [keyof AuditFilter, string][] = [
      ["action", "action"],
      ["targetType", "target_type"],
      ["targetUuid", "target_uuid"],
      ["actorKind", "actor_kind"],
      ["actorUuid", "actor_uuid"],
      ["outcome", "outcome"],
    ];
    for (const [field, column] of columns) {
      if (filter[field] === undefined) continue;
      values.push(filter[field]);
      conditions.push(`${column} = $${values.length}`);
    }
    const where = conditions.length ? `where ${conditions.join(" and ")}` : "";
    const n = values.length;
    // Page and exact total in one round trip. Unfiltered, the count is an
    // index-only scan; audit events are operator actions, far fewer than pay-ins.
    const rows = await this.db.query(
      sql<Nullable<AuditRow> & { total: string }>(`select (select count(*) from audit_events ${where}) as total, page.*
         from (select 1) one
         left join lateral (
           select ${COLUMNS} from audit_events ${where} order by occurred_at desc, event_uuid desc limit $${n + 1} offset $${n + 2}
         ) page on true`),
      [...values, page.limit, page.offset],
    );
    return {
      events: rows.filter(found<AuditRow>("event_uuid")).map(fromRow),
      total: Number(rows[0]?.total ?? 0),
    };
  }
}
