import { Migration } from "@payin/db";

/**
 * A membership carries the member's role for that merchant (EnsureMember's
 * `role`): `merchant_admin` or `merchant_member`, or null when the membership
 * names none (then the identity's own merchant roles decide, as they did for
 * every membership before this column). Existing memberships stay null, so
 * what each person may do for each merchant is unchanged by the migration.
 */
export class MembershipRoles extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table memberships
        add column role varchar(32) null
        constraint memberships_role_check check (role in ('merchant_admin', 'merchant_member'))`);
  }
}
