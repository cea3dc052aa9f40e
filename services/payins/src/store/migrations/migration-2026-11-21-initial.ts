import { Migration } from "@payin/db";

/**
 * Pay-in intents, create idempotency, and per-merchant counts. The counts are
 * kept by a trigger in sharded rows (8 per merchant/status/asset) so that
 * `pagination.total` is a sum over at most 48 rows instead of a count over
 * millions, and concurrent creates do not queue on one counter row.
 */
export class InitialPayins extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table pay_in_intents (
        intent_uuid uuid primary key,
        merchant_uuid uuid not null,
        status varchar(20) not null check (status in ('created', 'awaiting_payment', 'paid')),
        asset varchar(10) not null,
        rail varchar(10) not null,
        expected_amount numeric not null check (expected_amount > 0),
        address varchar(42),
        allocation_reference text,
        reference varchar(255),
        jurisdiction char(2) not null,
        created_at timestamptz(3) not null,
        expires_at timestamptz(3) not null,
        updated_at timestamptz(3) not null
      )`);
    this.addSql(`create index pay_in_intents_merchant_created_idx on pay_in_intents (merchant_uuid, created_at desc, intent_uuid desc)`);
    this.addSql(`create index pay_in_intents_merchant_status_idx on pay_in_intents (merchant_uuid, status, created_at desc, intent_uuid desc)`);
    this.addSql(`create index pay_in_intents_merchant_asset_idx on pay_in_intents (merchant_uuid, asset, created_at desc, intent_uuid desc)`);
    this.addSql(`create unique index pay_in_intents_address_key on pay_in_intents (address) where address is not null`);
    // A key is claimed (pending) before its intent exists, so intent_uuid is not
    // a foreign key; a completed key always has its intent (written together).
    this.addSql(`
      create table idempotency_keys (
        merchant_uuid uuid not null,
        idempotency_key varchar(64) not null,
        request_hash char(64) not null,
        intent_uuid uuid not null,
        state varchar(10) not null check (state in ('pending', 'completed')),
        claimed_at timestamptz(3) not null,
        created_at timestamptz(3) not null,
        primary key (merchant_uuid, idempotency_key)
      )`);
    this.addSql(`
      create table pay_in_intent_counts (
        merchant_uuid uuid not null,
        status varchar(20) not null,
        asset varchar(10) not null,
        slot smallint not null,
        n bigint not null,
        primary key (merchant_uuid, status, asset, slot)
      )`);
    this.addSql(`
      create function pay_in_intent_counts_apply(m uuid, s varchar, a varchar, delta int) returns void
      language sql as $$
        insert into pay_in_intent_counts (merchant_uuid, status, asset, slot, n)
        values (m, s, a, floor(random() * 8)::smallint, delta)
        on conflict (merchant_uuid, status, asset, slot) do update set n = pay_in_intent_counts.n + excluded.n
      $$`);
    this.addSql(`
      create function pay_in_intents_count() returns trigger
      language plpgsql as $$
      begin
        if tg_op in ('UPDATE', 'DELETE') then
          perform pay_in_intent_counts_apply(old.merchant_uuid, old.status, old.asset, -1);
        end if;
        if tg_op in ('INSERT', 'UPDATE') then
          perform pay_in_intent_counts_apply(new.merchant_uuid, new.status, new.asset, 1);
        end if;
        return null;
      end
      $$`);
    this.addSql(`
      create trigger pay_in_intents_count_insert_delete after insert or delete on pay_in_intents
      for each row execute function pay_in_intents_count()`);
    this.addSql(`
      create trigger pay_in_intents_count_update after update of status, asset, merchant_uuid on pay_in_intents
      for each row when (old.status is distinct from new.status or old.asset is distinct from new.asset
                         or old.merchant_uuid is distinct from new.merchant_uuid)
      execute function pay_in_intents_count()`);
  }
}
