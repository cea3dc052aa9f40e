import { afterAll, beforeAll, expect, it } from "vitest";
import pg from "pg";
import { createTestDatabase } from "@payin/testing";
import { verifyMerchantAnnouncements } from "../src/store/merchant-announcements.js";

// payins trusts the merchants schema's announcements only when its triggers are
// there and enabled. The real triggers are checked against the real migration
// in services/merchants/test/payin-context-changes.test.ts; here, a stand-in
// schema of the same shape, to see each way the check refuses.

let db: pg.Client;
const query = async (text: string) => (await db.query(text)).rows;
const TABLES = ["merchants", "rules", "policies", "operating_profiles"];

beforeAll(async () => {
  db = new pg.Client({ connectionString: await createTestDatabase("payins_announce") });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
});

it("refuses a database without the merchants schema's announcing function (merchants elsewhere, or not migrated)", async () => {
  await expect(verifyMerchantAnnouncements(query)).rejects.toThrow(/merchants, rules, policies, operating_profiles/);
});

it("accepts row and TRUNCATE triggers on each of the four tables, enabled or enabled always, and refuses when one is missing or disabled", async () => {
  await db.query("create schema merchants");
  await db.query("create function merchants.payin_context_changed() returns trigger language plpgsql as $$ begin return null; end $$");
  for (const table of TABLES) {
    await db.query(`create table merchants.${table} (id int)`);
    await db.query(`create trigger ${table}_changed after insert or update or delete on merchants.${table} for each row execute function merchants.payin_context_changed()`);
    await db.query(`create trigger ${table}_truncated after truncate on merchants.${table} for each statement execute function merchants.payin_context_changed()`);
  }
  await db.query("alter table merchants.rules enable always trigger rules_changed");
  await expect(verifyMerchantAnnouncements(query)).resolves.toBeUndefined();

  await db.query("alter table merchants.policies disable trigger policies_truncated");
  await expect(verifyMerchantAnnouncements(query)).rejects.toThrow(/changes to policies \(/);
  await db.query("alter table merchants.policies enable trigger policies_truncated");
  await db.query("drop trigger rules_changed on merchants.rules");
  await expect(verifyMerchantAnnouncements(query)).rejects.toThrow(/changes to rules \(/);
  // Firing only as a replica does not count either.
  await db.query(`create trigger rules_changed after insert or update or delete on merchants.rules for each row execute function merchants.payin_context_changed()`);
  await db.query("alter table merchants.rules enable replica trigger rules_changed");
  await expect(verifyMerchantAnnouncements(query)).rejects.toThrow(/changes to rules \(/);
  // A row trigger that misses deletes does not count.
  await db.query("drop trigger rules_changed on merchants.rules");
  await db.query(`create trigger rules_changed after insert or update on merchants.rules for each row execute function merchants.payin_context_changed()`);
  await expect(verifyMerchantAnnouncements(query)).rejects.toThrow(/changes to rules \(/);
  await db.query("drop trigger rules_changed on merchants.rules");
  await db.query(`create trigger rules_changed after insert or update or delete on merchants.rules for each row execute function merchants.payin_context_changed()`);
});

it("needs no rights on the merchants schema: a role without any reads the catalog alone", async () => {
  await expect(verifyMerchantAnnouncements(query)).resolves.toBeUndefined();
  const role = `payins_only_${Date.now()}`;
  await db.query(`create role ${role}`);
  try {
    await db.query(`set role ${role}`);
    await expect(verifyMerchantAnnouncements(query)).resolves.toBeUndefined();
  } finally {
    await db.query("reset role");
    await db.query(`drop role ${role}`);
  }
});
