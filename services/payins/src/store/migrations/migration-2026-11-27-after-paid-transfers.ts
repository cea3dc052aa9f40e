import { Migration } from "@payin/db";

/**
 * A transfer first recorded while its intent was already paid (a second
 * payment, a top-up) is flagged after_paid: evidence the merchant gives back,
 * never counted. The flag is set when the transfer is first recorded and never
 * changed by its later versions. Transfers recorded before are not after paid
 * (the observer stopped watching a paid intent's address then).
 */
export class AfterPaidTransfers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table pay_in_transfers add column after_paid boolean not null default false`);
  }
}
