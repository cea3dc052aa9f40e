import { Migration } from "@payin/db";

/**
 * Events notifications refused (RecordEvents answered INVALID_ARGUMENT for the
 * event sent alone: malformed, or of a type it does not know yet). The relay
 * moves each out of `event_outbox` into `event_outbox_refused`, in the
 * transaction that deletes it from the outbox, so that one such event does not
 * hold back everyone's. The outbox's columns, when it was refused and what
 * notifications said; an operator puts it back into `event_outbox` once
 * notifications takes it (docs/operations.md). Refused again, its row is
 * replaced.
 */
export class EventOutboxRefused extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table event_outbox_refused (
        event_uuid uuid primary key,
        merchant_uuid uuid not null,
        type varchar(64) not null,
        sequence bigint not null,
        intent_uuid uuid,
        checkout_uuid uuid,
        created_at timestamptz(3) not null,
        data text not null,
        refused_at timestamptz(3) not null,
        refusal_message text not null
      )`);
  }
}
