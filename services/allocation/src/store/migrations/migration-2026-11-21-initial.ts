import { Migration } from "@payin/db";

/** Receiving wallets (one account xpub and address counter per merchant) and the addresses handed out. */
export class InitialAllocation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table wallets (
        merchant_uuid uuid primary key,
        xpub text not null,
        next_index integer not null default 0 check (next_index >= 0),
        created_at timestamptz(3) not null,
        updated_at timestamptz(3) not null
      )`);
    // Lets SetWallet find another merchant holding the same key without a scan.
    this.addSql(`create index wallets_xpub_idx on wallets (xpub)`);
    this.addSql(`
      create table allocations (
        intent_uuid uuid primary key,
        merchant_uuid uuid not null references wallets (merchant_uuid),
        address_index integer not null check (address_index >= 0),
        address varchar(42) not null,
        rail varchar(16) not null,
        derivation_path text not null,
        created_at timestamptz(3) not null,
        constraint allocations_address_key unique (address),
        constraint allocations_merchant_index_key unique (merchant_uuid, address_index)
      )`);
  }
}
