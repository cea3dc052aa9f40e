import { Migration } from "@payin/db";

/** Merchants and their lifecycle status. */
export class InitialMerchants extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table merchants (
        uuid uuid primary key,
        display_name varchar(150) not null,
        legal_name varchar(255),
        status varchar(16) not null default 'inactive'
          check (status in ('inactive', 'active', 'suspended', 'closed')),
        created_at timestamptz(3) not null,
        updated_at timestamptz(3) not null
      )`);
    this.addSql(`create index merchants_status_idx on merchants (status)`);
    this.addSql(`create index merchants_display_name_idx on merchants (display_name)`);
  }
}
