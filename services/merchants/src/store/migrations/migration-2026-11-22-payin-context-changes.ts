import { Migration } from "@payin/db";

/** PAYIN_CONTEXT_CHANNEL (store/payin-context-feed.ts) as this migration shipped it (a shipped migration never changes). */
const CHANNEL = "merchants_payin_context";

/**
 * Announces every change to what a merchant's pay-in context is made of
 * (GetPayinContext: the merchant's status, the rules, its payin policy, its
 * operating profile) on the PostgreSQL channel `merchants_payin_context`, so that a
 * service caching contexts (payins) drops them as the change commits. The
 * payload is the merchant's uuid, or `*` when the change may concern every
 * merchant (a rule, a TRUNCATE). PostgreSQL delivers a transaction's
 * notifications when it commits, one per distinct payload, and none when it
 * rolls back. Triggers rather than application code, so that nothing that
 * writes these tables (the service, payinctl, an operator's SQL) can forget it;
 * enabled ALWAYS, so logical replication's apply announces too. The service's
 * pay-in context feed (WatchPayinContextChanges) is made of them.
 */
export class PayinContextChanges extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function payin_context_changed() returns trigger language plpgsql as $$
      begin
        if tg_level = 'STATEMENT' or tg_table_name = 'rules' then
          perform pg_notify('${CHANNEL}', '*');
        elsif tg_table_name = 'merchants' then
          if tg_op = 'DELETE' then
            perform pg_notify('${CHANNEL}', old.uuid::text);
          else
            perform pg_notify('${CHANNEL}', new.uuid::text);
            if tg_op = 'UPDATE' and old.uuid is distinct from new.uuid then
              perform pg_notify('${CHANNEL}', old.uuid::text);
            end if;
          end if;
        elsif tg_op = 'DELETE' then
          perform pg_notify('${CHANNEL}', old.merchant_uuid::text);
        else
          perform pg_notify('${CHANNEL}', new.merchant_uuid::text);
          -- A row moved to another merchant changes both.
          if tg_op = 'UPDATE' and old.merchant_uuid is distinct from new.merchant_uuid then
            perform pg_notify('${CHANNEL}', old.merchant_uuid::text);
          end if;
        end if;
        return null;
      end $$`);
    for (const table of ["merchants", "rules", "policies", "operating_profiles"]) {
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
