import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { migrate, type ServiceOrmOptions } from "../src/orm.js";
import { dateOrNull, found, openDatabase, prepared, sql, TransactionRolledBack, type Database, type Nullable } from "../src/database.js";
import { withDatabase } from "../src/url.js";

// The Database against a real PostgreSQL: what the services rely on of it.

/**
 * A fresh database on the run's server (libs/testing's global setup provides
 * it; @payin/testing itself depends on this package, so it is not imported).
 */
async function freshDatabase(): Promise<string> {
  const server = (inject as (key: string) => string)("pgServerUrl");
  const name = `db_helper_${randomBytes(6).toString("hex")}`;
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  return withDatabase(server, name);
}

let db: Database;
let options: ServiceOrmOptions;

beforeAll(async () => {
  const url = await freshDatabase();
  options = { url, schema: "helper", entities: [], migrations: [], poolMax: 2, applicationName: "db helper test" };
  await migrate(options);
  db = await openDatabase(options);
  await db.query(sql(`create table items (id int primary key, name text not null, at timestamptz, amount numeric)`));
});

afterAll(async () => {
  await db?.close();
});

it("binds values as parameters: arrays as PostgreSQL arrays, Dates as instants, text as is", async () => {
  const at = new Date("2026-01-02T03:04:05.678Z");
  await db.query(sql(`insert into items (id, name, at, amount) select * from unnest($1::int[], $2::text[], $3::timestamptz[], $4::numeric[])`), [
    [1, 2],
    ["it's", "a, b"],
    [at, at],
    ["12345678901234567890.000001", "0"],
  ]);
  const rows = await db.query(sql<{ id: number; name: string; at: string; amount: string }>(`select id, name, at, amount::text as amount from items order by id`));
  expect(rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() }))).toEqual([
    { id: 1, name: "it's", at: at.toISOString(), amount: "12345678901234567890.000001" },
    { id: 2, name: "a, b", at: at.toISOString(), amount: "0" },
  ]);
});

it("runs on the service's schema and pool: search_path and application_name are set", async () => {
  const [row] = await db.query(sql<{ path: string; app: string }>(`select current_setting('search_path') as path, current_setting('application_name') as app`));
  expect(row).toEqual({ path: "helper", app: "db helper test" });
});

it("runs a named prepared statement again and again, on every connection of the pool", async () => {
  const byId = prepared<{ name: string }>("helper.by-id", `select name from items where id = $1`);
  const answers = await Promise.all([1, 2, 1, 2, 1, 2].map((id) => db.query(byId, [id])));
  expect(answers.map((rows) => rows[0]?.name)).toEqual(["it's", "a, b", "it's", "a, b", "it's", "a, b"]);
  const [seen] = await db.query(sql<{ n: string }>(`select count(*) as n from pg_prepared_statements where name = 'helper.by-id'`));
  expect(Number(seen!.n)).toBe(1); // on this connection, which ran it before
});

it("commits a transaction's statements together, all on one connection", async () => {
  const pids = await db.transaction(async (tx) => {
    const pid = sql<{ pid: number }>(`select pg_backend_pid() as pid`);
    const first = (await tx.query(pid))[0]!.pid;
    await tx.query(sql(`insert into items (id, name) values ($1, $2)`), [10, "ten"]);
    await tx.query(sql(`insert into items (id, name) values ($1, $2)`), [11, "eleven"]);
    return [first, (await tx.query(pid))[0]!.pid];
  });
  expect(pids[0]).toBe(pids[1]);
  expect(await db.query(sql(`select id from items where id >= 10 order by id`))).toEqual([{ id: 10 }, { id: 11 }]);
});

it("rolls a transaction back when its work throws, and hands the error on", async () => {
  const failure = db.transaction(async (tx) => {
    await tx.query(sql(`insert into items (id, name) values ($1, $2)`), [20, "twenty"]);
    await tx.query(sql(`insert into items (id, name) values ($1, $2)`), [20, "twenty again"]);
  });
  await expect(failure).rejects.toMatchObject({ code: "23505" });
  expect(await db.query(sql(`select id from items where id = 20`))).toEqual([]);
  // The connection went back clean: the next transaction works.
  await db.transaction((tx) => tx.query(sql(`insert into items (id, name) values (21, 'x')`)));
  expect(await db.query(sql(`select id from items where id = 21`))).toEqual([{ id: 21 }]);
});

it("refuses to report a commit when a statement failed and the work went on after its error: nothing is kept", async () => {
  const outcome = await db
    .transaction(async (tx) => {
      await tx.query(sql(`insert into items (id, name) values (30, 'kept?')`));
      // A duplicate key the work catches and goes on from, as a repository answering "exists" might.
      await tx.query(sql(`insert into items (id, name) values (30, 'again')`)).catch(() => undefined);
      return "done";
    })
    .catch((error: unknown) => error);
  expect(outcome).toBeInstanceOf(TransactionRolledBack);
  expect(await db.query(sql(`select id from items where id = 30`))).toEqual([]);
});

it("does not lend out again a connection lost in the middle of a transaction", async () => {
  const lost = await db
    .transaction(async (tx) => {
      await tx.query(sql(`insert into items (id, name) values (31, 'lost')`));
      await tx.query(sql(`select pg_terminate_backend(pg_backend_pid())`));
    })
    .catch((error: unknown) => error);
  expect(lost).toBeInstanceOf(Error);
  // Every connection of the pool (two) answers outside any transaction, and the insert was not kept.
  const states = await Promise.all([1, 2].map(() => db.transaction(async (tx) => (await tx.query(sql<{ id: number }>(`select id from items where id = 31`))).length)));
  expect(states).toEqual([0, 0]);
});

it("holds row locks until the commit: a second transaction waits for the first", async () => {
  const order: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const first = db.transaction(async (tx) => {
    await tx.query(sql(`select id from items where id = 1 for update`));
    locked();
    await held;
    order.push("first commits");
  });
  await lockTaken;
  const second = db.transaction(async (tx) => {
    await tx.query(sql(`select id from items where id = 1 for update`));
    order.push("second has the lock");
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  release();
  await Promise.all([first, second]);
  expect(order).toEqual(["first commits", "second has the lock"]);
});

it("sets the isolation level and read-only when asked", async () => {
  const level = sql<{ transaction_isolation: string }>(`show transaction_isolation`);
  expect((await db.transaction((tx) => tx.query(level)))[0]!.transaction_isolation).toBe("read committed");
  expect((await db.transaction((tx) => tx.query(level), { isolation: "repeatable read", readOnly: true }))[0]!.transaction_isolation).toBe("repeatable read");
  await expect(db.transaction((tx) => tx.query(sql(`insert into items (id, name) values (30, 'x')`)), { readOnly: true })).rejects.toMatchObject({ code: "25006" });
});

it("refuses statements on a transaction that has ended", async () => {
  let kept: { query: Database["query"] } | undefined;
  await db.transaction(async (tx) => {
    kept = tx;
  });
  await expect(kept!.query(sql(`select 1`))).rejects.toThrow(/transaction has ended/);
});

it("reads a page and its total in one statement: found keeps the rows the left join found, the total stays", async () => {
  interface Item {
    id: number;
    at: string | null;
  }
  const page = sql<Nullable<Item> & { total: string }>(`select (select count(*) from items where id < $1) as total, page.*
       from (select 1) one
       left join lateral (select id, at from items where id < $1 order by id limit $2 offset $3) page on true`);
  const first = await db.query(page, [3, 10, 0]);
  expect(first.filter(found<Item>("id")).map((r) => [r.id, dateOrNull(r.at)?.toISOString() ?? null])).toEqual([
    [1, "2026-01-02T03:04:05.678Z"],
    [2, "2026-01-02T03:04:05.678Z"],
  ]);
  const past = await db.query(page, [3, 10, 5]);
  expect(past).toEqual([{ total: "2", id: null, at: null }]);
  expect(past.filter(found<Item>("id"))).toEqual([]);
  expect(dateOrNull(null)).toBeNull();
});
