import { Migration } from "@payin/db";

/**
 * Counts inserted intents once per statement instead of once per row. A
 * statement that inserts many intents (a coalesced batch of creates) then takes
 * one counter row per (merchant, status, asset), in that order, rather than a
 * random slot per row: two such statements running at once could otherwise each
 * hold a slot the other wants, and deadlock. Deletes and updates keep the
 * per-row trigger.
 */
export class StatementCounts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function pay_in_intents_count_inserted() returns trigger
      language plpgsql as $$
      begin
        insert into pay_in_intent_counts (merchant_uuid, status, asset, slot, n)
        select merchant_uuid, status, asset, floor(random() * 8)::smallint, count(*)
          from inserted group by merchant_uuid, status, asset
         order by merchant_uuid, status, asset
        on conflict (merchant_uuid, status, asset, slot) do update set n = pay_in_intent_counts.n + excluded.n;
        return null;
      end
      $$`);
    this.addSql(`drop trigger pay_in_intents_count_insert_delete on pay_in_intents`);
    this.addSql(`
      create trigger pay_in_intents_count_inserted after insert on pay_in_intents
      referencing new table as inserted for each statement execute function pay_in_intents_count_inserted()`);
    this.addSql(`
      create trigger pay_in_intents_count_deleted after delete on pay_in_intents
      for each row execute function pay_in_intents_count()`);
  }
}
