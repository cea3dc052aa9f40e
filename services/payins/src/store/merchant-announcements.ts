import type { SessionQuery } from "@payin/db";

/** The merchants schema's tables a pay-in context is read from; each announces its changes. */
const ANNOUNCING_TABLES = ["merchants", "rules", "policies", "operating_profiles"] as const;

/**
 * Enabled triggers of the merchants schema calling its announcing function, per
 * table (a row trigger and a TRUNCATE trigger each). Catalog only, readable by
 * any role: nothing of the merchants schema is touched.
 */
const ANNOUNCING_TRIGGERS = `
  select c.relname as table_name, count(*)::int as triggers
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
  const triggers = new Map(rows.map((row) => [row.table_name as string, Number(row.triggers)]));
  const silent = ANNOUNCING_TABLES.filter((table) => (triggers.get(table) ?? 0) < 2);
  if (silent.length > 0) {
    throw new Error(
      `the merchants schema of this database does not announce changes to ${silent.join(", ")} ` +
        "(its migration 2026-11-22-payin-context-changes has not run, or the triggers are disabled)",
    );
  }
}
