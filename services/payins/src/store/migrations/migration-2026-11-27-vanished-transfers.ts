import { Migration } from "@payin/db";

/**
 * A transfer that had settled and was then taken off the chain by a
 * reorganisation below the settled point (a finality violation) is kept,
 * orphaned, and says so: `vanished`, so the evidence tells it from a transfer
 * dropped before it settled.
 */
export class VanishedTransfers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table pay_in_transfers add column vanished boolean not null default false`);
  }
}
