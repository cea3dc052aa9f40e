import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { migrate, openOrm } from "@payin/db";
import { createTestDatabase } from "@payin/testing";
import { ormOptions } from "../src/store/orm.js";

let admin: pg.Client | undefined;
const role = `payins_${randomBytes(4).toString("hex")}`;

afterAll(async () => {
  if (!admin) return;
  await admin.query(`drop owned by ${role}`);
  await admin.query(`drop role ${role}`);
  await admin.end();
});

// As deploy/postgres/init-roles.sh sets up production: a login role owning its
// schema, with no right to create schemas or to use the others.
it("migrates and runs under a role that owns only its schema", async () => {
  const url = await createTestDatabase("roles");
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const password = randomBytes(12).toString("hex");
  await admin.query(`create role ${role} login password '${password}'`);
  await admin.query(`create schema payins authorization ${role}`);
  await admin.query(`create schema merchants`);
  const database = new URL(url).pathname.slice(1);
  await admin.query(`revoke all on database "${database}" from public`);
  await admin.query(`grant connect on database "${database}" to ${role}`);

  const asRole = new URL(url);
  asRole.username = role;
  asRole.password = password;
  const applied = await migrate(ormOptions(asRole.toString()));
  expect(applied.length).toBeGreaterThan(0);
  const orm = await openOrm(ormOptions(asRole.toString(), 1));
  try {
    const rows = await orm.em.getConnection().execute("select count(*)::int as n from mikro_orm_migrations");
    expect(rows[0]?.n).toBe(applied.length);
    await expect(orm.em.getConnection().execute("create table merchants.intruder (id int)")).rejects.toThrow(/permission denied/);
    await expect(orm.em.getConnection().execute("create schema elsewhere")).rejects.toThrow(/permission denied/);
  } finally {
    await orm.close();
  }
});
