import { Migration } from "@payin/db";

/**
 * Events merchants are told of, written in the same transaction as the change
 * they tell of: `event_outbox` holds them until the relay has handed them to
 * the notifications service (which keeps each once by its uuid), then they are
 * deleted. `data` is the event's data as JSON text (@payin/events eventData),
 * delivered as it is.
 *
 * Each intent and each checkout counts its events (`event_sequence`, the last
 * sequence given): a change takes the next numbers under the row's lock, so a
 * resource's events are numbered from 1 with no gaps. `deadline_event_at`
 * records that an intent's deadline_passed event was written (once); the
 * partial index is what the deadline scanner reads: unpaid intents whose event
 * is still due. Intents whose deadline had already passed before events
 * existed are marked as told, so the first scan does not tell of old deadlines.
 */
export class EventOutbox extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table event_outbox (
        event_uuid uuid primary key,
        merchant_uuid uuid not null,
        type varchar(64) not null,
        sequence bigint not null check (sequence >= 1),
        intent_uuid uuid,
        checkout_uuid uuid,
        created_at timestamptz(3) not null,
        data text not null
      )`);
    this.addSql(`
      alter table pay_in_intents
        add column event_sequence integer not null default 0,
        add column deadline_event_at timestamptz(3)`);
    this.addSql(`alter table checkout_sessions add column event_sequence integer not null default 0`);
    this.addSql(`update pay_in_intents set deadline_event_at = expires_at where expires_at <= now() and status <> 'paid'`);
    this.addSql(`
      create index pay_in_intents_deadline_due_idx on pay_in_intents (expires_at)
        where deadline_event_at is null and status <> 'paid'`);
  }
}
