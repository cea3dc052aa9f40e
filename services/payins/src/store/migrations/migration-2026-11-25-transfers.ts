import { Migration } from "@payin/db";

/**
 * The evidence of payment: every transfer the chain observer saw for an
 * intent's address (any watched rail, any watched token), once per (chain id,
 * tx hash, log index), in its latest reported state (the highest version wins).
 */
export class Transfers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table pay_in_transfers (
        chain_id bigint not null,
        tx_hash char(66) not null,
        log_index integer not null check (log_index >= 0),
        intent_uuid uuid not null references pay_in_intents (intent_uuid),
        rail varchar(10) not null,
        asset varchar(10) not null,
        decimals smallint not null check (decimals between 0 and 36),
        amount numeric(78, 0) not null check (amount >= 0),
        from_address varchar(42) not null,
        block_number bigint not null,
        block_hash char(66) not null,
        block_time timestamptz(3) not null,
        state varchar(10) not null check (state in ('pending', 'settled', 'orphaned')),
        dust boolean not null,
        version integer not null,
        recorded_at timestamptz(3) not null,
        updated_at timestamptz(3) not null,
        primary key (chain_id, tx_hash, log_index)
      )`);
    this.addSql(`create index pay_in_transfers_intent_idx on pay_in_transfers (intent_uuid, block_number, log_index)`);
  }
}
