import type { SessionQuery } from "@payin/db";

/** The merchants schema's tables a pay-in context is read from; each announces its changes. */
const ANNOUNCING_TABLES = ["merchants", "rules", "policies", "operating_profiles"] as const;

/**
 * Per table of the merchants schema, whether enabled triggers calling its
 * announcing function cover every row change (insert, update, delete, for
 * each row) and TRUNCATE. Catalog only, readable by
 * any role: nothing of the merchants schema is touched.
 */
const ANNOUNCING_TRIGGERS = `
  select c.relname as table_name,
         -- tgtype bits: 1 row, 4 insert, 8 delete, 16 update, 32 truncate.
         bool_or((t.tgtype::int & 29) = 29) as on_rows,
         bool_or((t.tgtype::int & 32) = 32) as on_truncate
    from pg_trigger t
    join pg_class c on c.oid = t.tgrelid
    join pg_namespace n on n.oid = c.relnamespace
    join pg_proc f on f.oid = t.tgfoid
    join pg_namespace fn on fn.oid = f.pronamespace
   where n.nspname = 'merchants'
     and fn.nspname = 'merchants' and f.proname = 'payin_context_changed'
     and t.tgenabled in ('O', 'A')
   group by c.relname`;

/**
 * Throws unless, in the database payins listens in, the merchants schema's
 * triggers announce every change to a pay-in context (migration
 * 2026-11-22-payin-context-changes of merchants has run, nobody disabled them,
 * and merchants lives in this same database). Run on the listening session
 * before its announcements are trusted.
 */
export async function verifyMerchantAnnouncements(query: SessionQuery): Promise<void> {
  const rows = await query(ANNOUNCING_TRIGGERS);
  const covered = new Set(rows.filter((row) => row.on_rows === true && row.on_truncate === true).map((row) => row.table_name as string));
  const silent = ANNOUNCING_TABLES.filter((table) => !covered.has(table));
  if (silent.length > 0) {
    throw new Error(
      `the merchants schema of this database does not announce changes to ${silent.join(", ")} ` +
        "(its migration 2026-11-22-payin-context-changes has not run, or the triggers are disabled)",
    );
  }
}
