import { Migration } from "@payin/db";

/**
 * A merchant's pay-in context now also says whether it is connected to a
 * provider bound for crypto.payin (GetPayinContext.payin_provider_connected,
 * read from provider_bindings and provider_connections): their changes are
 * announced like the others (migration 2026-11-22-payin-context-changes), with
 * the same function (both tables name the merchant in `merchant_uuid`), so that
 * payins drops a kept context as a binding or connection commits.
 */
export class PayinContextProviders extends Migration {
  override async up(): Promise<void> {
    for (const table of ["provider_bindings", "provider_connections"]) {
      this.addSql(`
        create trigger ${table}_payin_context_changed after insert or update or delete on ${table}
        for each row execute function payin_context_changed()`);
      this.addSql(`
        create trigger ${table}_payin_context_truncated after truncate on ${table}
        for each statement execute function payin_context_changed()`);
      // Also under session_replication_role = replica (logical replication's apply).
      this.addSql(`alter table ${table} enable always trigger ${table}_payin_context_changed`);
      this.addSql(`alter table ${table} enable always trigger ${table}_payin_context_truncated`);
    }
  }
}
