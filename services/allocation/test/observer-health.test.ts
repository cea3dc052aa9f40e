import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { migrate, openDatabase, type Database } from "@payin/db";
import { createLogger } from "@payin/logging";
import { railsFromEnv } from "@payin/rails";
import { createTestDatabase } from "@payin/testing";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ChainReader } from "../src/chain/evm-reader.js";
import { startHealthServer, type HealthServer } from "../src/observer/health-server.js";
import { Observer } from "../src/observer/observer.js";
import { ObservationRepository } from "../src/store/observation-repository.js";
import { ormOptions } from "../src/store/orm.js";

/**
 * The observer's leases on a real PostgreSQL where its role may not take an
 * advisory lock: nothing is observed or relayed, and /health and the log say
 * why, instead of the failure being swallowed.
 */
let admin: pg.Client | undefined;
let db: Database | undefined;
let observer: Observer | undefined;
let health: HealthServer | undefined;
const role = `observer_${randomBytes(4).toString("hex")}`;
const lines: Record<string, unknown>[] = [];
/** The observer's clock stands still here: a lease error is stamped with it. */
const CLOCK_AT = "2026-11-27T12:00:00.000Z";

beforeAll(async () => {
  const url = await createTestDatabase("observer_lease");
  await migrate(ormOptions(url));
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const password = randomBytes(12).toString("hex");
  await admin.query(`create role ${role} login password '${password}'`);
  // The lock function is open to everyone by default: here it is not.
  await admin.query(`revoke execute on function pg_try_advisory_lock(integer, integer) from public`);
  const asRole = new URL(url);
  asRole.username = role;
  asRole.password = password;

  db = await openDatabase(ormOptions(url, 2));
  const rails = railsFromEnv({ BEP20_RPC_URL: "http://127.0.0.1:9" });
  const logger = createLogger("observer", { level: "info" }, new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  }));
  const reader = new Proxy({} as ChainReader, {
    get: () => {
      throw new Error("no pass may run without the rail's lease");
    },
  });
  observer = new Observer({
    databaseUrl: asRole.toString(),
    rails,
    store: new ObservationRepository(db),
    payins: { recordObservations: () => Promise.reject(new Error("nothing may be relayed without the relay's lease")) },
    logger,
    readerOf: () => reader,
    relayIntervalMs: 50,
    clock: { now: () => new Date(CLOCK_AT) },
  });
  await observer.start();
  health = await startHealthServer(observer, { host: "127.0.0.1", port: 0 });
});

afterAll(async () => {
  await health?.close();
  await observer?.stop();
  await db?.close();
  if (admin) {
    await admin.query(`drop role ${role}`);
    await admin.end();
  }
});

interface Health {
  status: string;
  rails: { rail: string; configured: boolean; leaseHeld: boolean; leaseError: { code?: string; reason: string; at: string } | null; lastPassAt: string | null }[];
  relay: { leaseHeld: boolean; leaseError: { code?: string; reason: string; at: string } | null; lastError: string | null };
}

it("shows a lease that cannot be taken on /health, with the error's short text and time, and logs it once per lease", async () => {
  let body: Health | undefined;
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`http://127.0.0.1:${health!.port}/health`);
    expect(res.status).toBe(200);
    body = (await res.json()) as Health;
    if (body.rails.find((r) => r.rail === "bep20")?.leaseError && body.relay.leaseError) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const denied = { code: "42501", reason: "permission denied for function pg_try_advisory_lock", at: CLOCK_AT };
  const bep20 = body!.rails.find((r) => r.rail === "bep20")!;
  expect(bep20).toMatchObject({ configured: true, leaseHeld: false, leaseError: denied, lastPassAt: null });
  expect(body!.relay).toMatchObject({ leaseHeld: false, leaseError: denied, lastError: null });
  // An unobserved rail has no lease to fail.
  expect(body!.rails.find((r) => r.rail === "erc20")).toMatchObject({ configured: false, leaseError: null });

  // The relay tries every 50 ms: still one line per lease.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const leaseLines = lines.filter((l) => l.msg === "could not take or keep an observer lease; its work waits until it can");
  expect(leaseLines.map((l) => [l.level, l.lease, l.cause]).sort()).toEqual([
    [40, "bep20", { code: "42501", message: "permission denied for function pg_try_advisory_lock" }],
    [40, "relay", { code: "42501", message: "permission denied for function pg_try_advisory_lock" }],
  ]);
});
