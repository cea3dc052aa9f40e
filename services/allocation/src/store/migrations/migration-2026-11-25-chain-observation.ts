import { Migration } from "@payin/db";

/**
 * Chain observation: per rail a cursor (the next block to read, on the chain
 * of that genesis block) and the observer's last progress; the blocks read above the settled point (to tell a
 * reorganisation); every transfer of a watched token to an allocated address,
 * once per (chain id, tx hash, log index), with its state; and the outbox that
 * carries what was observed to payins, written in the same transaction as the
 * observation. An allocation is armed once its rail's observer watches it, and
 * watched until `watch_until` (set from payins' answer: the intent's deadline
 * plus the watching margin, or now once it is paid).
 */
export class ChainObservation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table allocations
        add column armed_at timestamptz(3),
        add column armed_from_block bigint,
        add column watch_until timestamptz(3)`);
    // The observer loads new allocations by creation time; expired watches leave its set.
    this.addSql(`create index allocations_created_at_idx on allocations (created_at)`);
    this.addSql(`create index allocations_unarmed_idx on allocations (rail, created_at) where armed_at is null`);
    this.addSql(`
      create table observer_cursors (
        rail varchar(16) primary key,
        chain_id bigint not null,
        genesis_hash char(66) not null,
        next_block bigint not null check (next_block >= 0),
        advanced_at timestamptz(3) not null,
        updated_at timestamptz(3) not null
      )`);
    this.addSql(`
      create table observed_blocks (
        chain_id bigint not null,
        number bigint not null,
        hash char(66) not null,
        parent_hash char(66) not null,
        primary key (chain_id, number)
      )`);
    this.addSql(`
      create table observed_transfers (
        chain_id bigint not null,
        tx_hash char(66) not null,
        log_index integer not null check (log_index >= 0),
        rail varchar(16) not null,
        intent_uuid uuid not null references allocations (intent_uuid),
        asset varchar(16) not null,
        contract varchar(42) not null,
        decimals smallint not null,
        from_address varchar(42) not null,
        to_address varchar(42) not null,
        amount numeric(78, 0) not null check (amount >= 0),
        dust boolean not null,
        block_number bigint not null,
        block_hash char(66) not null,
        block_time timestamptz(3) not null,
        state varchar(16) not null check (state in ('pending', 'settled', 'orphaned')),
        version integer not null default 1,
        first_seen_at timestamptz(3) not null,
        updated_at timestamptz(3) not null,
        primary key (chain_id, tx_hash, log_index)
      )`);
    this.addSql(`create index observed_transfers_pending_idx on observed_transfers (chain_id, block_number) where state = 'pending'`);
    this.addSql(`create index observed_transfers_intent_idx on observed_transfers (intent_uuid)`);
    this.addSql(`
      create table observation_outbox (
        id bigint generated always as identity primary key,
        intent_uuid uuid not null,
        kind varchar(16) not null check (kind in ('armed', 'transfer')),
        payload jsonb not null,
        created_at timestamptz(3) not null
      )`);
  }
}
