import { Migration } from "@payin/db";

/**
 * An audit event also names the operating-system user the operator CLI ran as
 * (its own report, beside the person it signed in as, if any); null for every
 * other caller's events.
 */
export class AuditOsUser extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table audit_events add column actor_os_user text null`);
  }
}
