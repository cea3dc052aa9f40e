import { Migration } from "@payin/db";

/**
 * The audit outbox: one row per change allocation makes for a person or the
 * operator (a receiving wallet set, a rail resumed), written in the change's own
 * transaction, and sent to the merchants service's audit log by the relay
 * (@payin/db, audit-outbox.ts), which deletes a row once merchants kept it.
 * Columns are those of merchants.audit_events.
 */
export class AuditOutbox extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table audit_outbox (
        event_uuid uuid primary key,
        actor_kind text not null constraint audit_outbox_actor_kind check (actor_kind in ('identity', 'operator_cli', 'system')),
        actor_uuid uuid,
        actor_os_user text,
        request_id text,
        action text not null,
        target_type text not null,
        target_uuid uuid,
        outcome text not null default 'succeeded' constraint audit_outbox_outcome check (outcome = 'succeeded'),
        error_code text,
        occurred_at timestamptz not null,
        constraint audit_outbox_actor_uuid check ((actor_kind = 'identity') = (actor_uuid is not null))
      )`);
    this.addSql(`create index audit_outbox_oldest_idx on audit_outbox (occurred_at, event_uuid)`);
  }
}
