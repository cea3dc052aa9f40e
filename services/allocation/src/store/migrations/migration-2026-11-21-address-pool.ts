import { Migration } from "@payin/db";

/**
 * Addresses derived ahead of the counter, so allocation is one short statement.
 * Keyed by xpub too: after a wallet's key is replaced, rows of the old key no
 * longer match and are cleared.
 */
export class AddressPool extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table address_pool (
        merchant_uuid uuid not null references wallets (merchant_uuid),
        xpub text not null,
        address_index integer not null check (address_index >= 0),
        address varchar(42) not null,
        derivation_path text not null,
        primary key (merchant_uuid, xpub, address_index)
      )`);
  }
}
