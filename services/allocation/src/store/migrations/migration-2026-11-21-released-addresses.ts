import { Migration } from "@payin/db";

/**
 * Addresses given back (BatchReleaseAddresses): allocated to an intent that was
 * never stored, so never shown to anyone. The next allocations of the merchant
 * take them first, lowest index first, which keeps the used indexes gap-free.
 * Each remembers the xpub it was derived from, and so does every allocation from
 * now on: after the wallet's key is replaced, an address of the old key is not
 * handed out unless the wallet gets that key back (older allocations, with no xpub
 * recorded, are never released).
 */
export class ReleasedAddresses extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table allocations add column xpub text`);
    this.addSql(`
      create table released_addresses (
        merchant_uuid uuid not null references wallets (merchant_uuid),
        address_index integer not null check (address_index >= 0),
        xpub text not null,
        address varchar(42) not null,
        derivation_path text not null,
        released_at timestamptz(3) not null,
        primary key (merchant_uuid, address_index)
      )`);
  }
}
