import type { EntityManager } from "@payin/db";
import type { ActorKind, AuditEvent, AuditFilter, AuditOutcome, AuditStore } from "../domain/audit.js";
import { date, textOrNull, type Row } from "./rows.js";

const COLUMNS = `event_uuid, actor_kind, actor_uuid, request_id, action, target_type, target_uuid, outcome, error_code, occurred_at`;

function fromRow(row: Row): AuditEvent {
  return {
    eventUuid: row.event_uuid as string,
    actor: {
      kind: row.actor_kind as ActorKind,
      uuid: textOrNull(row.actor_uuid),
      requestId: textOrNull(row.request_id),
    },
    action: row.action as string,
    targetType: row.target_type as string,
    targetUuid: textOrNull(row.target_uuid),
    outcome: row.outcome as AuditOutcome,
    errorCode: textOrNull(row.error_code),
    occurredAt: date(row.occurred_at),
  };
}

/** AuditStore on PostgreSQL: an append-only table (a trigger refuses updates and deletes). */
export class AuditRepository implements AuditStore {
  constructor(private readonly em: EntityManager) {}

  async append(event: AuditEvent): Promise<void> {
    await this.em.execute(`insert into audit_events (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      event.eventUuid,
      event.actor.kind,
      event.actor.uuid,
      event.actor.requestId,
      event.action,
      event.targetType,
      event.targetUuid,
      event.outcome,
      event.errorCode,
      event.occurredAt,
    ]);
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
      conditions.push(`${column} = ?`);
      values.push(filter[field]);
    }
    const where = conditions.length ? `where ${conditions.join(" and ")}` : "";
    // Page and exact total in one round trip. Unfiltered, the count is an
    // index-only scan; audit events are operator actions, far fewer than pay-ins.
    const rows = await this.em.execute(
      `select (select count(*) from audit_events ${where}) as total, page.*
         from (select 1) one
         left join lateral (
           select ${COLUMNS} from audit_events ${where} order by occurred_at desc, event_uuid desc limit ? offset ?
         ) page on true`,
      [...values, ...values, page.limit, page.offset],
    );
    return {
      events: rows.filter((row: Row) => row.event_uuid !== null).map(fromRow),
      total: Number(rows[0]?.total ?? 0),
    };
  }
}
