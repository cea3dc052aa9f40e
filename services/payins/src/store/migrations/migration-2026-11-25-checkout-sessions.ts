import { Migration } from "@payin/db";

/**
 * Hosted checkout sessions. Only the SHA-256 of a session's token is kept. The
 * state column holds open, started (its intent exists) and disabled; paid is
 * read from the intent. The start_* columns hold the terms the first start
 * fixed (pair, deadline) so every start creates the same intent. At most one
 * intent per session (unique intent_uuid).
 */
export class CheckoutSessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table checkout_sessions (
        uuid uuid primary key,
        merchant_uuid uuid not null,
        token_hash char(64) not null unique,
        reference varchar(255),
        description varchar(500),
        amount numeric not null check (amount > 0),
        pairs jsonb not null check (jsonb_typeof(pairs) = 'array' and jsonb_array_length(pairs) >= 1),
        jurisdiction char(2) not null,
        state varchar(10) not null check (state in ('open', 'started', 'disabled')),
        intent_uuid uuid unique references pay_in_intents (intent_uuid),
        payment_window_s integer not null check (payment_window_s > 0),
        start_asset varchar(10),
        start_rail varchar(10),
        start_expires_at timestamptz(3),
        start_claimed_at timestamptz(3),
        created_at timestamptz(3) not null,
        updated_at timestamptz(3) not null,
        check ((state = 'started') = (intent_uuid is not null)),
        check ((start_claimed_at is null) = (start_asset is null) and (start_claimed_at is null) = (start_rail is null)
               and (start_claimed_at is null) = (start_expires_at is null))
      )`);
    this.addSql(`create index checkout_sessions_merchant_created_idx on checkout_sessions (merchant_uuid, created_at desc, uuid desc)`);
  }
}
