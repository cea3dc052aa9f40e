/**
 * `npm run bench`: starts an embedded PostgreSQL and the whole platform on free
 * ports, sets up merchants through the services' RPC clients, seeds two list
 * merchants straight in SQL, and loads the API gateway with autocannon from a
 * second process (create, read, list at 50 connections), next to baselines
 * measured in the same run:
 *
 *   B1   every statement of a create (claim ∥ catch-up with merchant changes,
 *        allocate, store; each autocommits, as in the services) driven straight at
 *        PostgreSQL with `pg` from a second process: create's own SQL;
 *   B1a  payins' statements of a create only (reference);
 *   B2   a bare Koa handler making one Connect call (the project's client) to a
 *        trivial Connect service, each in its own process: one hop;
 *   B2-0 the same Koa handler without the call (reference).
 *
 * Then the checkout group (src/checkout.ts): the hosted checkout's status poll,
 * GET /c/{token}/status over 1,000 started checkouts, in BENCH_READ_REPEATS
 * pairs alternating with B2 windows as the read does (status/B2 ≥ 0.7 on the
 * medians; status p99 ≤ 3 × B2's p99), and the payer page GET /c/{token}
 * (reported, not judged).
 *
 * Then the mixed run (do sign-ins hold reads up?): the read path's capacity (closed loop), then
 * BENCH_MIXED_REPEATS pairs back to back of reads offered open-loop at
 * BENCH_MIXED_READ_PERCENT of that capacity, alone and while a third process
 * signs in (successful logins of identities without MFA through the gateway) at
 * BENCH_LOGINS_PER_S; the target is read p99 with logins / read p99 alone ≤ 1.20,
 * judged on the pairs pooled. A last window repeats the logins under the
 * closed-loop read load, reported only.
 *
 * Then the observation group (src/observation.ts): the chain observer on a local
 * anvil chain at 1,000 and 100,000 watched addresses: transfers matched per
 * second, JSON-RPC calls per block (the 100,000 figure ≤ 2× the 1,000 one) and
 * the time from the settling block to `paid` (p99 ≤ poll interval + 1 s).
 *
 * Prints a table, the ratios against the targets (create vs its own SQL, read vs
 * one hop, status vs one hop, read p99 with logins vs without), and CPU use per
 * process during each measured window; writes everything to
 * tmp/bench-results.json. Exits 0 whether or not targets are met.
 *
 * BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 2),
 * BENCH_CONNECTIONS (default 50), BENCH_LIST_ROWS (default 1000000),
 * BENCH_LOGINS_PER_S (default 20), BENCH_MIXED_REPEATS (default 3),
 * BENCH_MIXED_READ_PERCENT (reads offered in the mixed pairs, % of flat out, default 30),
 * BENCH_MIXED_DURATION (s, each window of those pairs, default 20),
 * Then the webhooks group (src/webhooks.ts): events from a create's commit to a
 * receiver on loopback at 500 creates a second (lag p50/p99, target p99 ≤ 1 s),
 * and a backlog of 20,000 events delivered as fast as it goes (target ≥ 1,000 a
 * second).
 *
 * BENCH_SCENARIOS (groups to run, default "baselines,create,read,list,checkout,mixed,observation,webhooks"),
 * BENCH_OBSERVATION_WATCHED (default "1000,100000"), BENCH_OBSERVATION_TRANSFERS (default 10000),
 * BENCH_OBSERVATION_POLL_MS (default 1000),
 * BENCH_PROFILE_DIR (write V8 CPU profiles of the platform's processes there). Everything
 * else in the environment reaches the platform's processes, e.g. PROCESS_NICE and
 * ARGON2_CONCURRENCY of the identity service.
 */
import { PAYIN_CAPABILITY } from "@payin/permissions";
import { randomBytes } from "node:crypto";
import { createWriteStream, readdirSync, readFileSync, type WriteStream } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import pg from "pg";
import { callerDigestsFor, deriveCredential } from "@payin/config";
import { freePort, startEmbeddedPostgres, type EmbeddedPostgresHandle } from "@payin/db-embedded";
import { launchPlatform, PLATFORM_PROCESSES, REPO_ROOT, SERVICES, type Platform } from "@payin/launcher";
import { totpCode } from "@payin/otp";
import { allocationV1, identityV1, merchantsV1, payinsV1 } from "@payin/proto";
import { createServiceClient } from "@payin/rpc";
import { CHECKOUT_ENV, CHECKOUT_SESSIONS, checkCheckoutAnswers, lowerMedian, startedCheckouts } from "./checkout.js";
import { runJsonChild, startServerChild, stopAllChildren, stopChild } from "./children.js";
import { CpuMeter } from "./cpu.js";
import type { HttpLoadConfig } from "./load-runner.js";
import type { LoginLoadConfig, LoginResult } from "./login-runner.js";
import type { SqlLoadConfig } from "./sql-runner.js";
import { FILL_B1_POOL } from "./create-sql.js";
import { printObservation, runObservation, stopObservation, type ObservationResult } from "./observation.js";
import { runWebhooks, WEBHOOK_TARGETS, type WebhookResult } from "./webhooks.js";
import { PgWaitSampler } from "./pg-waits.js";
import { envInt, fmt, quantile, type LoadResult } from "./stats.js";

const out = (line = "") => process.stdout.write(`${line}\n`);


const DURATION_S = envInt("BENCH_DURATION", 10, 1);
const WARMUP_S = envInt("BENCH_WARMUP", 2, 0);
const CONNECTIONS = envInt("BENCH_CONNECTIONS", 50, 1);
const LIST_ROWS = envInt("BENCH_LIST_ROWS", 1_000_000, 1);
const LOGINS_PER_S = envInt("BENCH_LOGINS_PER_S", 20, 1);
const MIXED_REPEATS = envInt("BENCH_MIXED_REPEATS", 3, 1);
/** Alternating B2/read windows the read ratio is judged on. */
const READ_REPEATS = envInt("BENCH_READ_REPEATS", 3, 1);
/** Share of the flat-out read rate offered during the mixed run's judged pairs. */
const READ_SHARE = envInt("BENCH_MIXED_READ_PERCENT", 30, 1) / 100;
/** Measured seconds of each window of the mixed run's judged pairs: long, as a p99 of a few thousand reads is noisy. */
const MIXED_DURATION_S = envInt("BENCH_MIXED_DURATION", 20, 1);
const SMALL_LIST_ROWS = 1_000;
/** Scenario groups to run (comma-separated): all of them unless BENCH_SCENARIOS says otherwise. */
const SCENARIO_GROUPS = ["baselines", "create", "read", "list", "checkout", "mixed", "observation", "webhooks"] as const;
type ScenarioGroup = (typeof SCENARIO_GROUPS)[number];
const SELECTED = new Set<string>((process.env.BENCH_SCENARIOS ?? SCENARIO_GROUPS.join(",")).split(",").map((g) => g.trim()).filter(Boolean));
for (const group of SELECTED) {
  if (!(SCENARIO_GROUPS as readonly string[]).includes(group)) throw new Error(`BENCH_SCENARIOS: unknown group "${group}" (known: ${SCENARIO_GROUPS.join(", ")})`);
}
const runs = (group: ScenarioGroup) => SELECTED.has(group);
/** When set, every platform process writes a V8 CPU profile into PROFILE_DIR/<process name>/ as it stops. */
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR ? path.resolve(process.env.BENCH_PROFILE_DIR) : undefined;
const MNEMONIC = "test test test test test test test test test test test junk";
/** Every pay-in the bench creates is in this jurisdiction. */
const JURISDICTION = "DE";
/** The provider the merchants service seeds (evm-rpc: EVM JSON-RPC chain observation). */
const EVM_RPC_PROVIDER_UUID = "01a2008d-7400-7000-8000-000000000001";

const TARGETS = { createVsB1: 0.25, createP99Ms: 50, readVsB2: 0.7, statusVsB2: 0.7, statusP99VsB2P99: 3, readP99WithLoginsVsAlone: 1.2 };

/**
 * Loopback source addresses for the logins: sign-in throttling allows 100 failed or
 * in-progress attempts per client IP in 15 minutes, and the gateway's client IP is
 * the TCP peer.
 */
const LOGIN_ADDRESSES = Array.from({ length: 253 }, (_, i) => `127.0.0.${i + 2}`);
/** Identities the logins rotate over (an attempt in progress counts against its email's limit of 5 failures). */
const LOGIN_IDENTITIES = 50;

/** payins' tables that a load churns (on the bench connection's search path). */
const PAYINS_TABLES = ["pay_in_intents", "idempotency_keys", "pay_in_intent_counts"];
/** payins' table of hosted checkouts, which the checkout group's set-up fills. */
const CHECKOUT_TABLE = "checkout_sessions";
/** allocation's tables that B1 and the creates churn. */
const ALLOCATION_TABLES = ["allocation.allocations", "allocation.address_pool", "allocation.wallets"];

/** Vacuum-analyzes the tables and checkpoints, so that the next window does not pay for what came before it; returns the seconds taken. */
async function settle(db: pg.Client, tables: string[]): Promise<number> {
  const start = performance.now();
  await db.query(`vacuum (analyze) ${tables.join(", ")}`);
  await db.query("checkpoint");
  return (performance.now() - start) / 1000;
}

/** The scenario with the median throughput (the lower middle of an even count). */
function medianBy(list: Scenario[]): Scenario {
  const sorted = [...list].sort((a, b) => a.result.rps - b.result.rps);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

interface Scenario {
  name: string;
  label: string;
  result: LoadResult;
  /** CPU per process during the measured window, % of one core. */
  cpu: Record<string, number>;
  /** Average number of PostgreSQL sessions per activity during the window. */
  pgSessions: Record<string, number>;
  /** The sign-ins running alongside (mixed scenarios only). */
  logins?: LoginResult;
}

/** The current 6-digit TOTP code of a base32 secret. */
function totpNow(base32Secret: string): string {
  return totpCode(base32Secret, new Date());
}

/** Nice values (and SCHED_IDLE) of the threads of a process (Linux; empty elsewhere), e.g. {"0": 1, "19 SCHED_IDLE": 11}. */
function threadNices(pid: number | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  if (pid === undefined || process.platform !== "linux") return counts;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // Field 19 is the nice value, field 41 the policy (5 = SCHED_IDLE).
      const key = `${fields[16] ?? "?"}${fields[38] === "5" ? " SCHED_IDLE" : ""}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
  } catch {
    // gone, or not readable: reported as unknown
  }
  return counts;
}

/** Everything that must be stopped on the way out. */
const running: { platform?: Platform; postgres?: EmbeddedPostgresHandle; runDir?: string; log?: WriteStream; waits?: PgWaitSampler } = {};

let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await running.waits?.close();
    await stopAllChildren().catch(() => {});
    await stopObservation().catch(() => {});
    await running.platform?.stopAll().catch(() => {});
    await running.postgres?.stop().catch(() => {});
    if (running.runDir) await rm(running.runDir, { recursive: true, force: true }).catch(() => {});
    running.log?.end();
  })();
  return cleaning;
}

/** Account xpub (m/44'/60'/0') of `seed`, by default the well-known test mnemonic's. */
function accountXpub(seed: Uint8Array = mnemonicToSeedSync(MNEMONIC)): string {
  return HDKey.fromMasterSeed(seed).derive("m/44'/60'/0'").publicExtendedKey;
}

async function main(): Promise<void> {
  const tmpDir = path.join(REPO_ROOT, "tmp");
  await mkdir(tmpDir, { recursive: true });
  const runDir = await mkdtemp(path.join(tmpDir, "bench-run-"));
  running.runDir = runDir;
  await chmod(runDir, 0o755); // as root, PostgreSQL runs as its own user and must reach its data directory
  const logFile = path.join(tmpDir, "bench.log");
  await writeFile(logFile, "");
  const log = createWriteStream(logFile, { flags: "a" });
  running.log = log;
  const startedAt = new Date();
  const t0 = performance.now();
  const elapsed = () => `${((performance.now() - t0) / 1000).toFixed(0)}s`;
  const step = (text: string) => out(`[${elapsed().padStart(4)}] ${text}`);

  out(`payin bench: ${CONNECTIONS} connections, ${DURATION_S} s per scenario after ${WARMUP_S} s warm-up`);
  out(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? "cpu"}, node ${process.version}, load average ${os.loadavg()[0]!.toFixed(2)}; logs in ${path.relative(REPO_ROOT, logFile)}`);
  if (os.loadavg()[0]! > 0.5) out("note: the machine is already busy; the \"other\" CPU column shows how much that skews each window");

  // --- PostgreSQL and the platform -------------------------------------------------------
  step("starting embedded PostgreSQL…");
  const pgDir = path.join(runDir, "postgres");
  running.postgres = await startEmbeddedPostgres({ dataDir: pgDir, persistent: false });
  const databaseUrl = await running.postgres.createDatabase("payin");
  // The master secret: the launcher derives each process's credential from it;
  // the bench's own calls present the `test` caller's, allowed every RPC.
  const masterToken = randomBytes(32).toString("base64url");
  const serviceToken = deriveCredential(masterToken, "test");
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    SERVICE_TOKEN: masterToken,
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString("base64url"),
    LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
    // The checkout gateway's public limits, raised and in memory for the run (src/checkout.ts).
    ...CHECKOUT_ENV,
    // The webhooks group's receiver listens on loopback over http.
    WEBHOOK_ALLOW_INSECURE_URLS: "true",
  };
  const urls: Record<string, string> = {};
  for (const spec of PLATFORM_PROCESSES) {
    const port = await freePort();
    env[spec.portVariable] = String(port);
    urls[spec.name] = `http://127.0.0.1:${port}`;
  }
  for (const spec of SERVICES) env[`${spec.name.toUpperCase()}_URL`] = urls[spec.name]!;
  step("starting the platform (identity, merchants, notifications, allocation, payins, observer, notifier, api, checkout)…");
  running.platform = await launchPlatform({
    extraCallers: ["test"],
    env,
    output: logFile,
    nodeArgs: PROFILE_DIR ? (name) => ["--cpu-prof", `--cpu-prof-dir=${path.join(PROFILE_DIR, name)}`] : undefined,
  });
  const apiUrl = urls.api!;
  const checkoutUrl = urls.checkout!;

  const cpu = new CpuMeter();
  for (const [name, proc] of running.platform.processes) cpu.track(name, proc.child.pid);
  const postmasterPid = Number(readFileSync(path.join(pgDir, "postmaster.pid"), "utf8").split("\n")[0]);
  cpu.track("postgres", postmasterPid, true);

  // --- merchants, wallets and credentials, through the services ---------------------------
  step("setting up merchants, wallets and credentials over RPC…");
  const rpc = { serviceToken };
  const merchants = createServiceClient(merchantsV1.MerchantsService, { baseUrl: urls.merchants!, ...rpc });
  const allocation = createServiceClient(allocationV1.AllocationService, { baseUrl: urls.allocation!, ...rpc });
  const identity = createServiceClient(identityV1.IdentityService, { baseUrl: urls.identity!, ...rpc });
  const payins = createServiceClient(payinsV1.PayinsService, { baseUrl: urls.payins!, ...rpc });
  const newMerchant = async (displayName: string) => {
    const { merchant } = await merchants.createMerchant({ displayName });
    await merchants.transitionMerchant({ uuid: merchant!.uuid, transition: merchantsV1.MerchantTransition.ACTIVATE });
    return merchant!.uuid;
  };
  const credential = async (merchantUuid: string) => (await identity.createMachineCredential({ merchantUuid })).token;
  // Pay-ins need a platform rule allowing crypto.payin in the jurisdiction, and a
  // merchant with an allowing payin policy and an operating profile.
  await merchants.createRule({ capability: PAYIN_CAPABILITY, jurisdiction: JURISDICTION, effect: "allow" });
  // A merchant takes pay-ins with an allowing payin policy, an operating profile, and a
  // provider bound for crypto.payin with a connection to it (the seeded evm-rpc).
  const allowPayins = async (merchantUuid: string) => {
    await merchants.createPolicy({ merchantUuid, scope: "payin", effect: "allow" });
    await merchants.ensureOperatingProfile({ merchantUuid, operatingMode: "non_custodial" });
    await merchants.ensureProviderBinding({ merchantUuid, providerUuid: EVM_RPC_PROVIDER_UUID, capability: PAYIN_CAPABILITY, jurisdiction: JURISDICTION });
    await merchants.ensureProviderConnection({ merchantUuid, providerUuid: EVM_RPC_PROVIDER_UUID });
  };

  const createMerchant = await newMerchant("Bench create/read/list");
  await allowPayins(createMerchant);
  await allocation.setWallet({ merchantUuid: createMerchant, xpub: accountXpub() });
  const createToken = await credential(createMerchant);
  const b1Merchant = await newMerchant("Bench B1 (SQL baseline)");
  await allowPayins(b1Merchant);
  // A wallet belongs to one merchant only: B1's comes from a random seed.
  await allocation.setWallet({ merchantUuid: b1Merchant, xpub: accountXpub(randomBytes(32)) });
  const smallMerchant = await newMerchant(`Bench list ${SMALL_LIST_ROWS}`);
  const smallToken = await credential(smallMerchant);
  const bigMerchant = await newMerchant(`Bench list ${LIST_ROWS}`);
  const bigToken = await credential(bigMerchant);
  // The checkout merchant: ready as the create merchant is, with a wallet of its
  // own (from a random seed), so that its 1,000 started checkouts' intents stay
  // out of the create merchant's reads and lists. Its checkouts are created and
  // started just before the group measures (their deadline is half an hour away).
  let checkoutMerchant: string | undefined;
  if (runs("checkout")) {
    checkoutMerchant = await newMerchant("Bench checkout");
    await allowPayins(checkoutMerchant);
    await allocation.setWallet({ merchantUuid: checkoutMerchant, xpub: accountXpub(randomBytes(32)) });
  }

  // The webhooks group's merchant: ready, with a wallet of its own, and its one
  // endpoint (the receiver) created when the group runs.
  let webhookMerchant: string | undefined;
  if (runs("webhooks")) {
    webhookMerchant = await newMerchant("Bench webhooks");
    await allowPayins(webhookMerchant);
    await allocation.setWallet({ merchantUuid: webhookMerchant, xpub: accountXpub(randomBytes(32)) });
  }

  // The identities the mixed run signs in (in turn; see login-runner.ts): no MFA,
  // so a login answers a session at once. Created by a bootstrapped
  // platform_admin whose session completed MFA.
  const admin = await identity.bootstrapAdmin({ email: "bench-admin@example.com" });
  const adminSecret = new URL(admin.totpUri).searchParams.get("secret") ?? "";
  const adminLogin = await identity.login({ email: "bench-admin@example.com", password: admin.password, transport: "bearer", clientIp: "127.0.0.1" });
  if (adminLogin.result.case !== "mfaChallengeToken") throw new Error("the bootstrapped admin's login did not ask for MFA");
  const adminSession = await identity.completeMfa({ mfaChallengeToken: adminLogin.result.value, code: totpNow(adminSecret), clientIp: "127.0.0.1" });
  const loginUsers = Array.from({ length: LOGIN_IDENTITIES }, (_, i) => ({ email: `bench-login-${i}@example.com`, password: randomBytes(18).toString("base64url") }));
  for (const user of loginUsers) {
    await identity.createIdentity({ caller: { sessionToken: adminSession.authenticated!.sessionToken }, ...user, roles: ["merchant_member"] });
  }
  const identityNices = threadNices(running.platform.processes.get("identity")?.child.pid);
  step(`identity threads by nice value: ${JSON.stringify(identityNices)} (PROCESS_NICE ${process.env.PROCESS_NICE ?? "default"}, WORKER_SCHED_IDLE ${process.env.WORKER_SCHED_IDLE ?? "default"}, ARGON2_CONCURRENCY ${process.env.ARGON2_CONCURRENCY ?? "default"})`);

  // --- seed the list merchants straight in SQL ------------------------------------------
  const db = new pg.Client({ connectionString: databaseUrl, options: "-c search_path=payins" });
  db.on("error", () => {}); // a dropped connection surfaces on the next query
  await db.connect();
  const seed = async (merchantUuid: string, rows: number) => {
    // The per-row count trigger upserts one of a few counter rows per intent; in one
    // big transaction every upsert walks the versions the earlier ones left (they
    // cannot be pruned before commit), which makes a 1M-row insert quadratic (over
    // 10 minutes here). So triggers are off for this session (superuser only) and
    // the counters get the same totals in one aggregate upsert, in one transaction.
    await db.query("begin");
    await db.query("set local session_replication_role = replica");
    // Newest first, one second apart back from now; assets, rails and statuses mixed.
    await db.query(
      `insert into pay_in_intents (intent_uuid, merchant_uuid, status, asset, rail, expected_amount, address,
         allocation_reference, reference, jurisdiction, created_at, expires_at, updated_at)
       select gen_random_uuid(), $1, (array['created', 'awaiting_payment', 'paid'])[1 + g % 3],
         case when g % 2 = 0 then 'usdt' else 'usdc' end, case when g % 2 = 0 then 'bep20' else 'erc20' end,
         (10 + g % 1000)::numeric + 0.25, null, null, 'seed-' || g, 'DE',
         now() - make_interval(secs => g), now() + interval '1 day', now() - make_interval(secs => g)
       from generate_series(1, $2::int) g`,
      [merchantUuid, rows],
    );
    await db.query(
      `insert into pay_in_intent_counts (merchant_uuid, status, asset, slot, n)
       select merchant_uuid, status, asset, 0, count(*) from pay_in_intents where merchant_uuid = $1 group by 1, 2, 3
       on conflict (merchant_uuid, status, asset, slot) do update set n = pay_in_intent_counts.n + excluded.n`,
      [merchantUuid],
    );
    await db.query("commit");
  };
  step(`seeding ${SMALL_LIST_ROWS.toLocaleString("en")} and ${LIST_ROWS.toLocaleString("en")} intents with SQL…`);
  const seedStart = performance.now();
  await seed(smallMerchant, SMALL_LIST_ROWS);
  await seed(bigMerchant, LIST_ROWS);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const vacuumStart = performance.now();
  // What autovacuum would otherwise do in the middle of a measurement.
  await db.query(`vacuum (analyze) ${PAYINS_TABLES.join(", ")}`);
  const vacuumSeconds = (performance.now() - vacuumStart) / 1000;
  // The bulk load's writeback, done now: otherwise the checkpoint its WAL sets off
  // (past max_wal_size) runs, paced, through the next minute of windows, create's
  // among them (seen in pg_stat_checkpointer).
  const checkpointStart = performance.now();
  await db.query("checkpoint");
  const checkpointSeconds = (performance.now() - checkpointStart) / 1000;
  // The counters must agree with the rows; and what a plain count(*) would cost.
  const countStart = performance.now();
  const counted = Number((await db.query(`select count(*) as n from pay_in_intents where merchant_uuid = $1`, [bigMerchant])).rows[0]?.n);
  const plainCountMs = performance.now() - countStart;
  const kept = Number((await db.query(`select sum(n) as n from pay_in_intent_counts where merchant_uuid = $1`, [bigMerchant])).rows[0]?.n);
  if (counted !== LIST_ROWS || kept !== LIST_ROWS) throw new Error(`seeding left ${counted} rows and counters of ${kept}, expected ${LIST_ROWS}`);
  step(`seeded in ${seedSeconds.toFixed(1)} s, vacuum analyze ${vacuumSeconds.toFixed(1)} s, checkpoint ${checkpointSeconds.toFixed(1)} s; a plain count(*) of the ${LIST_ROWS.toLocaleString("en")} takes ${plainCountMs.toFixed(1)} ms (idle)`);

  // --- smoke check: the paths the load uses answer as expected ---------------------------
  const base = (m: string) => `/api/v1/merchants/${m}/pay-in-intents`;
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const smoke = await fetch(`${apiUrl}${base(createMerchant)}`, {
    method: "POST",
    headers: { ...auth(createToken), "content-type": "application/json", "idempotency-key": `smoke-${Date.now()}` },
    body: JSON.stringify({ asset: "usdt", amount: "1.00", jurisdiction: JURISDICTION, expires_at: new Date(Date.now() + 3600_000).toISOString() }),
  });
  if (smoke.status !== 201) throw new Error(`smoke create answered ${smoke.status}: ${await smoke.text()}`);
  const smokeIntent = (await smoke.json()) as { intent_uuid: string };
  for (const [p, token] of [
    [`${base(createMerchant)}/${smokeIntent.intent_uuid}`, createToken],
    [`${base(bigMerchant)}?limit=20`, bigToken],
  ] as const) {
    const res = await fetch(`${apiUrl}${p}`, { headers: auth(token) });
    if (res.status !== 200) throw new Error(`smoke GET ${p} answered ${res.status}: ${await res.text()}`);
  }
  const smokeLogin = await fetch(`${apiUrl}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...loginUsers[0], transport: "bearer" }),
  });
  const smokeLoginBody = (await smokeLogin.json().catch(() => ({}))) as { status?: string };
  if (smokeLogin.status !== 200 || smokeLoginBody.status !== "authenticated") {
    throw new Error(`smoke login answered ${smokeLogin.status}: ${JSON.stringify(smokeLoginBody)}`);
  }

  // --- scenarios -------------------------------------------------------------------------
  const scenarios: Scenario[] = [];
  const waits = await PgWaitSampler.connect(databaseUrl);
  running.waits = waits;
  let pgSessions: Record<string, number> = {};
  interface WindowHooks {
    onMeasureStart?: () => void;
    onMeasureEnd?: () => void;
  }
  const measure = async (
    name: string,
    label: string,
    runner: "load-runner.ts" | "paced-runner.ts" | "sql-runner.ts",
    config: HttpLoadConfig | SqlLoadConfig,
    hooks: WindowHooks = {},
  ) => {
    step(`${label}…`);
    let before: ReturnType<CpuMeter["snapshot"]> | undefined;
    let after: ReturnType<CpuMeter["snapshot"]> | undefined;
    const result = await runJsonChild<LoadResult>(runner, config, log, {
      onStart: (pid) => cpu.track("loadgen", pid),
      onMessage: (message, reply) => {
        const phase = (message as { phase?: string })?.phase;
        if (phase === "measure-start") {
          hooks.onMeasureStart?.();
          before = cpu.snapshot();
          waits.start();
        }
        if (phase === "measure-end") {
          hooks.onMeasureEnd?.();
          after = cpu.snapshot();
          pgSessions = waits.stop();
          reply({ ack: "measure-end" });
        }
      },
    });
    cpu.untrack("loadgen");
    const scenario: Scenario = { name, label, result, cpu: before && after ? CpuMeter.usage(before, after, os.cpus().length) : {}, pgSessions };
    pgSessions = {};
    scenarios.push(scenario);
    const bad = result.non2xx + result.errors;
    out(`       ${fmt(result.rps)} /s, p50 ${fmt(result.p50, 2)} ms, p99 ${fmt(result.p99, 2)} ms${bad ? `, ${bad} failed ${JSON.stringify(result.statusCodes ?? result.sampleErrors)}` : ""}`);
    return scenario;
  };
  /** A baseline that fails (e.g. its SQL no longer fits) is reported, not fatal. */
  const baseline = async (...args: Parameters<typeof measure>): Promise<Scenario | undefined> => {
    try {
      return await measure(...args);
    } catch (error) {
      out(`       FAILED: ${(error as Error).message}`);
      return undefined;
    }
  };
  const http = (headers: Record<string, string>, kind: "get" | "create", paths: string[], url = apiUrl): HttpLoadConfig => ({
    url,
    connections: CONNECTIONS,
    durationS: DURATION_S,
    warmupS: WARMUP_S,
    headers,
    kind,
    paths,
    jurisdiction: JURISDICTION,
  });

  let b1: Scenario | undefined;
  let baselineSettleSeconds: number | undefined;
  // B2: bare Koa → one Connect call → trivial service, each its own process;
  // kept running for the read pairs below.
  let b2Processes: { koaUrl: string; stop: () => Promise<void> } | undefined;
  const startB2 = async () => {
    const trivial = await startServerChild("trivial-service.ts", { SERVICE_CALLER_DIGESTS: callerDigestsFor(masterToken, ["test"]), LOG_LEVEL: "warn" }, log);
    const koa = await startServerChild("koa-relay.ts", { SERVICE_CREDENTIAL: serviceToken, TRIVIAL_URL: `http://127.0.0.1:${trivial.port}` }, log);
    cpu.track("b2-koa", koa.child.pid);
    cpu.track("b2-service", trivial.child.pid);
    return {
      koaUrl: `http://127.0.0.1:${koa.port}`,
      stop: async () => {
        await Promise.all([stopChild(koa.child), stopChild(trivial.child)]);
        cpu.untrack("b2-koa");
        cpu.untrack("b2-service");
      },
    };
  };
  if (runs("baselines")) {
  b2Processes = await startB2();
  await baseline("b2_bare", "B2-0  bare Koa, no call (reference)", "load-runner.ts", http({}, "get", ["/bare"], b2Processes.koaUrl));
  await baseline("b2", "B2    bare Koa + one Connect call", "load-runner.ts", http({}, "get", ["/call"], b2Processes.koaUrl));

  // B1: the create's SQL straight at PostgreSQL, on a merchant of its own whose
  // allocation pool is filled ahead (as the allocation service keeps it).
  const poolRows = Math.max(20_000, 5_000 * (DURATION_S + WARMUP_S + 1));
  const allocationDb = new pg.Client({ connectionString: databaseUrl, options: "-c search_path=allocation" });
  allocationDb.on("error", () => {});
  await allocationDb.connect();
  await allocationDb.query(FILL_B1_POOL, [b1Merchant, poolRows]);
  await allocationDb.end();
  const sql = (allServices: boolean): SqlLoadConfig => ({
    databaseUrl,
    connections: CONNECTIONS,
    durationS: DURATION_S,
    warmupS: WARMUP_S,
    merchantUuid: b1Merchant,
    jurisdiction: JURISDICTION,
    allServices,
  });
  await baseline("b1_payins_only", "B1a   SQL: payins' statements only (claim key, store intent)", "sql-runner.ts", sql(false));
  b1 = await baseline("b1", "B1    SQL: a create's statements (claim ∥ catch-up, allocate, store)", "sql-runner.ts", sql(true));
  // B1 and B1a leave tens of thousands of dead and fresh rows behind in the same
  // tables (and B1's pre-filled pool in allocation's); settle them as the seeding
  // is settled, so that the create measures the product and not autovacuum and a
  // checkpoint catching up on the baselines' leftovers in the middle of its window.
  baselineSettleSeconds = await settle(db, [...PAYINS_TABLES, ...ALLOCATION_TABLES]);
  step(`settled the baselines' leftovers in ${baselineSettleSeconds.toFixed(1)} s (vacuum analyze, checkpoint)`);
  }

  // The API.
  const create = runs("create") ? await measure("create", "API   POST create", "load-runner.ts", http(auth(createToken), "create", [base(createMerchant)])) : undefined;
  if (!create && (runs("read") || runs("mixed"))) {
    // The reads need intents to read.
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${apiUrl}${base(createMerchant)}`, {
        method: "POST",
        headers: { ...auth(createToken), "content-type": "application/json", "idempotency-key": `read-seed-${i}` },
        body: JSON.stringify({ asset: i % 2 ? "usdc" : "usdt", amount: "5.00", jurisdiction: JURISDICTION, expires_at: new Date(Date.now() + 3600_000).toISOString() }),
      });
      if (res.status !== 201) throw new Error(`seeding reads: create answered ${res.status}`);
    }
  }
  const created = await db.query(`select intent_uuid from pay_in_intents where merchant_uuid = $1 order by created_at desc limit 1000`, [createMerchant]);
  const countCreated = Number((await db.query(`select count(*) as n from pay_in_intents where merchant_uuid = $1`, [createMerchant])).rows[0]?.n);
  const readPaths = created.rows.map((r: { intent_uuid: string }) => `${base(createMerchant)}/${r.intent_uuid}`);
  // Read against B2 in alternating windows (B2, read, B2, read, …): a window's
  // throughput moves by a quarter from one minute to the next on this machine,
  // so the judged ratio is the median read over the median B2 of those pairs.
  const readPairs: { b2: Scenario; read: Scenario }[] = [];
  if (runs("read")) {
    b2Processes ??= await startB2();
    for (let i = 1; i <= READ_REPEATS; i++) {
      const suffix = READ_REPEATS > 1 ? ` #${i}` : "";
      const pairB2 = await baseline(`b2_pair_${i}`, `B2    bare Koa + one Connect call${suffix}`, "load-runner.ts", http({}, "get", ["/call"], b2Processes.koaUrl));
      const pairRead = await measure(`read_${i}`, `API   GET one intent (${readPaths.length} in turn)${suffix}`, "load-runner.ts", http(auth(createToken), "get", readPaths));
      if (pairB2) readPairs.push({ b2: pairB2, read: pairRead });
    }
  }
  const read = readPairs.length ? medianBy(readPairs.map((p) => p.read)) : undefined;
  const readB2 = readPairs.length ? medianBy(readPairs.map((p) => p.b2)) : undefined;
  let list: Scenario | undefined;
  let listSmall: Scenario | undefined;
  let listBig: Scenario | undefined;
  if (runs("list")) {
  list = await measure("list", `API   GET list limit 20 (${countCreated.toLocaleString("en")} intents)`, "load-runner.ts", http(auth(createToken), "get", [`${base(createMerchant)}?limit=20`]));
  listSmall = await measure("list_1k", `API   GET list limit 20 (${SMALL_LIST_ROWS.toLocaleString("en")} intents)`, "load-runner.ts", http(auth(smallToken), "get", [`${base(smallMerchant)}?limit=20`]));
  listBig = await measure("list_big", `API   GET list limit 20 (${LIST_ROWS.toLocaleString("en")} intents)`, "load-runner.ts", http(auth(bigToken), "get", [`${base(bigMerchant)}?limit=20`]));
  }

  // The hosted checkout's status poll against B2, in alternating pairs as the
  // read (B2 #i, then status #i), over 1,000 started checkouts in turn; then the
  // payer page once, reported only.
  const statusPairs: { b2: Scenario; status: Scenario }[] = [];
  let checkoutPage: Scenario | undefined;
  let checkoutSetup: { seconds: number; settleSeconds: number } | undefined;
  if (runs("checkout") && checkoutMerchant) {
    step(`creating and starting ${CHECKOUT_SESSIONS.toLocaleString("en")} checkouts over payins RPC…`);
    const setupStart = performance.now();
    const tokens = await startedCheckouts(payins, checkoutMerchant, JURISDICTION);
    const setupSeconds = (performance.now() - setupStart) / 1000;
    // The starts' intents, allocations and session updates, settled as the seeding is.
    const settleSeconds = await settle(db, [CHECKOUT_TABLE, ...PAYINS_TABLES, ...ALLOCATION_TABLES]);
    checkoutSetup = { seconds: setupSeconds, settleSeconds };
    await checkCheckoutAnswers(checkoutUrl, tokens[0]!);
    step(`${tokens.length.toLocaleString("en")} checkouts started in ${setupSeconds.toFixed(1)} s, settled in ${settleSeconds.toFixed(1)} s; a status answers 200, awaiting_payment, not paid`);
    b2Processes ??= await startB2();
    const statusPaths = tokens.map((token) => `/c/${token}/status`);
    for (let i = 1; i <= READ_REPEATS; i++) {
      const suffix = READ_REPEATS > 1 ? ` #${i}` : "";
      const pairB2 = await baseline(`b2_status_pair_${i}`, `B2    bare Koa + one Connect call (status pair)${suffix}`, "load-runner.ts", http({}, "get", ["/call"], b2Processes.koaUrl));
      const pairStatus = await measure(`status_${i}`, `CHECKOUT GET /c/{token}/status (${tokens.length} in turn)${suffix}`, "load-runner.ts", http({}, "get", statusPaths, checkoutUrl));
      if (pairB2) statusPairs.push({ b2: pairB2, status: pairStatus });
    }
    checkoutPage = await measure("checkout_page", `CHECKOUT GET /c/{token} payer page (${tokens.length} in turn)`, "load-runner.ts", http({}, "get", tokens.map((token) => `/c/${token}`), checkoutUrl));
  }
  await b2Processes?.stop();
  await db.end();

  // The mixed run: the read load alone, then at once the same read load
  // while a third process signs in at LOGINS_PER_S; pairs back to back so that
  // drift of the machine affects both halves alike.
  const readConfig = http(auth(createToken), "get", readPaths);
  let nextAddress = 0;
  const withLogins = async (name: string, label: string, readLoad: HttpLoadConfig): Promise<Scenario> => {
    const runner = readLoad.ratePerS ? "paced-runner.ts" : "load-runner.ts";
    // Each run continues through the source addresses where the last stopped.
    const addresses = [...LOGIN_ADDRESSES.slice(nextAddress), ...LOGIN_ADDRESSES.slice(0, nextAddress)];
    const loginConfig: LoginLoadConfig = { url: apiUrl, users: loginUsers, ratePerS: LOGINS_PER_S, localAddresses: addresses };
    let tellLogins: ((message: unknown) => void) | undefined;
    let signalReady: () => void = () => {};
    const ready = new Promise<void>((resolve) => (signalReady = resolve));
    const logins = runJsonChild<LoginResult>("login-runner.ts", loginConfig, log, {
      onStart: (pid) => cpu.track("logins", pid),
      onMessage: (message, reply) => {
        if ((message as { phase?: string })?.phase === "ready") {
          tellLogins = reply;
          signalReady();
        }
      },
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      ready,
      logins.then(() => Promise.reject(new Error("the login runner ended before its first login"))),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error("no successful login within 30 s")), 30_000))),
    ]).finally(() => clearTimeout(timer));
    // The logins run through the read warm-up too; only the read's measured window counts.
    const scenario = await measure(name, label, runner, readLoad, {
      onMeasureStart: () => tellLogins?.({ cmd: "measure-start" }),
      onMeasureEnd: () => tellLogins?.({ cmd: "measure-end" }),
    });
    scenario.logins = await logins;
    cpu.untrack("logins");
    nextAddress = (nextAddress + scenario.logins.fired) % LOGIN_ADDRESSES.length;
    const l = scenario.logins;
    const failedLogins = Object.values(l.failed).reduce((a, b) => a + b, 0);
    out(`       logins: ${l.ok} ok of ${l.started} started (${fmt(l.rps)} /s; ${fmt(l.completedInWindow / l.durationS)} /s answered within the window), p50 ${fmt(l.p50, 2)} ms, p99 ${fmt(l.p99, 2)} ms, at most ${l.maxInFlight} in flight${failedLogins ? `, ${failedLogins} failed ${JSON.stringify(l.failed)}` : ""}`);
    return scenario;
  };
  // The target pairs offer the reads at a fixed rate, READ_SHARE of what the
  // read path answers flat out (measured first, here): a busy platform with CPU
  // to spare, where a login must not hold reads up. Flat out, every core is
  // already taken by reads, so any other work (a login's argon2 included) slows
  // them in proportion; that pair is measured too and reported, not judged.
  const mixedPairs: { alone: Scenario; mixed: Scenario }[] = [];
  let saturated: { alone: Scenario; mixed: Scenario } | undefined;
  let pacedRate = 0;
  if (runs("mixed")) {
    const capacity = await measure("read_capacity", "API   GET one intent, flat out (capacity)", "load-runner.ts", readConfig);
    pacedRate = Math.max(1, Math.round(capacity.result.rps * READ_SHARE));
    const paced: HttpLoadConfig = { ...readConfig, ratePerS: pacedRate, durationS: MIXED_DURATION_S };
    for (let i = 1; i <= MIXED_REPEATS; i++) {
      const suffix = MIXED_REPEATS > 1 ? ` #${i}` : "";
      const alone = await measure(`read_alone_${i}`, `API   GET one intent at ${pacedRate}/s, alone${suffix}`, "paced-runner.ts", paced);
      const mixed = await withLogins(`read_with_logins_${i}`, `API   GET one intent at ${pacedRate}/s + ${LOGINS_PER_S} logins/s${suffix}`, paced);
      mixedPairs.push({ alone, mixed });
    }
    const mixed = await withLogins("read_flat_out_with_logins", `API   GET one intent, flat out + ${LOGINS_PER_S} logins/s`, readConfig);
    saturated = { alone: capacity, mixed };
  }

  // --- observation: the chain observer on a local chain (src/observation.ts) ----------------
  let observation: ObservationResult | undefined;
  if (runs("observation")) {
    observation = await runObservation({
      databaseUrl,
      env,
      logFile,
      platform: running.platform,
      postgresPid: postmasterPid,
      step,
      nodeArgs: PROFILE_DIR ? (name) => ["--cpu-prof", `--cpu-prof-dir=${path.join(PROFILE_DIR, name)}`] : undefined,
    });
  }

  // --- webhooks: events from commit to a receiver (src/webhooks.ts) -----------------------------
  let webhooks: WebhookResult | undefined;
  if (runs("webhooks") && webhookMerchant) {
    webhooks = await runWebhooks({ urls, serviceToken, merchantUuid: webhookMerchant, jurisdiction: JURISDICTION, log, step });
  }

  // --- report ----------------------------------------------------------------------------
  out();
  out(`Results (${CONNECTIONS} connections, ${DURATION_S} s each; ${os.cpus().length} cores = ${os.cpus().length * 100}% CPU in all)`);
  const header = ["scenario", "req/s", "p50 ms", "p99 ms", "max ms", "ok", "failed", "CPU in the window (% of one core; other = not the bench)"];
  const rows = scenarios.map((s) => [
    s.label,
    fmt(s.result.rps),
    fmt(s.result.p50, 2),
    fmt(s.result.p99, 2),
    fmt(s.result.max, 1),
    String(s.result.ok),
    String(s.result.non2xx + s.result.errors),
    Object.entries(s.cpu)
      .filter(([k, v]) => v > 0 || k === "other")
      .sort((a, b) => (a[0] === "other" || a[0] === "idle" ? 1 : 0) - (b[0] === "other" || b[0] === "idle" ? 1 : 0) || b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(", "),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd();
  out(line(header));
  out(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows) out(line(r));
  out();
  out("PostgreSQL sessions of the database during each window (average count; \"idle in transaction\" = a transaction waiting for its service)");
  for (const s of scenarios) {
    const text = Object.entries(s.pgSessions).map(([k, v]) => `${k} ${v}`).join(", ");
    if (text) out(`  ${s.label.padEnd(widths[0]!)}  ${text}`);
  }

  const pooledP99 = (windows: Scenario[]) => quantile(Float64Array.from(windows.flatMap((w) => w.result.latencies ?? [])).sort(), 0.99);
  const pooled = mixedPairs.length
    ? (() => {
        const alone = pooledP99(mixedPairs.map((p) => p.alone));
        const mixed = pooledP99(mixedPairs.map((p) => p.mixed));
        return { alone, mixed, ratio: alone > 0 ? mixed / alone : Number.POSITIVE_INFINITY };
      })()
    : undefined;
  const verdict = (ok: boolean | undefined) => (ok === undefined ? "n/a (not measured)" : ok ? "met" : "MISSED");
  const ratio = (a: Scenario | undefined, b: Scenario | undefined) => (a && b && b.result.rps > 0 ? a.result.rps / b.result.rps : undefined);
  const createVsB1 = ratio(create, b1);
  const readVsB2 = ratio(read, readB2);
  // The status poll is judged as the read: median status over median B2 of the
  // alternating windows; and its tail against B2's, each the median of its
  // windows' p99s.
  const status = statusPairs.length ? medianBy(statusPairs.map((p) => p.status)) : undefined;
  const statusB2 = statusPairs.length ? medianBy(statusPairs.map((p) => p.b2)) : undefined;
  const statusVsB2 = ratio(status, statusB2);
  const statusP99 = statusPairs.length ? { status: lowerMedian(statusPairs.map((p) => p.status.result.p99)), b2: lowerMedian(statusPairs.map((p) => p.b2.result.p99)) } : undefined;
  const statusP99VsB2 = statusP99 ? (statusP99.b2 > 0 ? statusP99.status / statusP99.b2 : Number.POSITIVE_INFINITY) : undefined;
  const b1a = scenarios.find((s) => s.name === "b1_payins_only");
  const b2 = scenarios.find((s) => s.name === "b2");
  const ratios = {
    createVsB1: { value: createVsB1 ?? null, target: `>= ${TARGETS.createVsB1}`, met: createVsB1 === undefined ? null : createVsB1 >= TARGETS.createVsB1 },
    // B2's own p99 beside it: the tail of one trivial call at the same 50
    // connections in the same run, the floor this machine sets for a hop.
    createP99Ms: { value: create?.result.p99 ?? null, target: `< ${TARGETS.createP99Ms}`, met: create ? create.result.p99 < TARGETS.createP99Ms : null, b2P99Ms: b2?.result.p99 ?? null },
    readVsB2: { value: readVsB2 ?? null, target: `>= ${TARGETS.readVsB2}`, met: readVsB2 === undefined ? null : readVsB2 >= TARGETS.readVsB2 },
    statusVsB2: { value: statusVsB2 ?? null, target: `>= ${TARGETS.statusVsB2}`, met: statusVsB2 === undefined ? null : statusVsB2 >= TARGETS.statusVsB2 },
    statusP99VsB2P99: statusP99
      ? { value: statusP99VsB2!, target: `<= ${TARGETS.statusP99VsB2P99}`, met: statusP99VsB2! <= TARGETS.statusP99VsB2P99, statusP99Ms: statusP99.status, b2P99Ms: statusP99.b2 }
      : null,
    checkoutPage: checkoutPage ? { rps: checkoutPage.result.rps, p50Ms: checkoutPage.result.p50, p99Ms: checkoutPage.result.p99 } : null,
    createVsB1a: ratio(create, b1a) ?? null,
    listP99SmallMs: { value: listSmall?.result.p99 ?? null, rows: SMALL_LIST_ROWS },
    listP99BigMs: { value: listBig?.result.p99 ?? null, rows: LIST_ROWS },
    mixedReadRatePerS: pacedRate || null,
    readP99WithLoginsPooled: pooled
      ? { value: pooled.ratio, target: `<= ${TARGETS.readP99WithLoginsVsAlone}`, met: pooled.ratio <= TARGETS.readP99WithLoginsVsAlone, aloneP99Ms: pooled.alone, withLoginsP99Ms: pooled.mixed }
      : null,
    readP99WithLoginsFlatOut: saturated ? saturated.mixed.result.p99 / saturated.alone.result.p99 : null,
    readP99WithLogins: mixedPairs.map(({ alone, mixed }) => {
      const value = alone.result.p99 > 0 ? mixed.result.p99 / alone.result.p99 : Number.POSITIVE_INFINITY;
      const l = mixed.logins!;
      return {
        value,
        target: `<= ${TARGETS.readP99WithLoginsVsAlone}`,
        met: value <= TARGETS.readP99WithLoginsVsAlone,
        aloneP99Ms: alone.result.p99,
        withLoginsP99Ms: mixed.result.p99,
        loginsStartedPerS: l.started / l.durationS,
        loginsAnsweredInWindowPerS: l.completedInWindow / l.durationS,
        loginP50Ms: l.p50,
        loginP99Ms: l.p99,
        // The pair means what it says only when the logins really ran at (nearly)
        // the rate during the window, none failing.
        loginsOk: Object.keys(l.failed).length === 0 && l.completedInWindow / l.durationS >= 0.95 * LOGINS_PER_S,
      };
    }),
  };
  const failedNote = (s: Scenario) => (s.result.non2xx + s.result.errors > 0 ? ` (${s.result.non2xx + s.result.errors} failed requests!)` : "");
  out();
  out("Targets");
  if (create) {
    out(`  create vs its own SQL (B1): create req/s / B1 tx/s   ${fmt(create.result.rps)} / ${fmt(b1?.result.rps)} = ${createVsB1?.toFixed(2) ?? "-"}   target ≥ ${TARGETS.createVsB1}   ${verdict(ratios.createVsB1.met ?? undefined)}${failedNote(create)}`);
    out(`  create p99 at ${CONNECTIONS} connections   ${fmt(create.result.p99, 2)} ms   target < ${TARGETS.createP99Ms} ms   ${verdict(ratios.createP99Ms.met ?? undefined)}`);
    if (b2) out(`    (B2, one trivial Connect call, in this run: p99 ${fmt(b2.result.p99, 2)} ms at ${fmt(b2.result.rps)} req/s; a create makes two calls and three transactions)`);
  }
  if (read) {
    const pairs = readPairs.map((p) => (p.read.result.rps / p.b2.result.rps).toFixed(2)).join(", ");
    out(`  read vs one hop (B2): read req/s / B2 req/s   ${fmt(read.result.rps)} / ${fmt(readB2?.result.rps)} = ${readVsB2?.toFixed(2) ?? "-"}   target ≥ ${TARGETS.readVsB2}   ${verdict(ratios.readVsB2.met ?? undefined)}${failedNote(read)}`);
    out(`    (medians of ${readPairs.length} alternating B2/read windows; per pair: ${pairs})`);
  }
  if (status && statusB2 && statusP99) {
    const failedStatus = statusPairs.reduce((n, p) => n + p.status.result.non2xx + p.status.result.errors, 0);
    const statusFailedNote = failedStatus ? ` (${failedStatus} failed requests!)` : "";
    const pairs = statusPairs.map((p) => (p.status.result.rps / p.b2.result.rps).toFixed(2)).join(", ");
    const tails = statusPairs.map((p) => `${fmt(p.status.result.p99, 2)}/${fmt(p.b2.result.p99, 2)}`).join(", ");
    out(`  checkout status vs one hop (B2): status req/s / B2 req/s   ${fmt(status.result.rps)} / ${fmt(statusB2.result.rps)} = ${statusVsB2?.toFixed(2) ?? "-"}   target ≥ ${TARGETS.statusVsB2}   ${verdict(ratios.statusVsB2.met ?? undefined)}${statusFailedNote}`);
    out(`    (medians of ${statusPairs.length} alternating B2/status windows; per pair: ${pairs})`);
    out(`  checkout status p99 vs B2 p99   ${fmt(statusP99.status, 2)} ms / ${fmt(statusP99.b2, 2)} ms = ${statusP99VsB2!.toFixed(2)}   target ≤ ${TARGETS.statusP99VsB2P99}   ${verdict(ratios.statusP99VsB2P99?.met)}${statusFailedNote}`);
    out(`    (medians of the windows' p99s; per pair, status/B2 ms: ${tails})`);
  }
  if (checkoutPage) {
    out(`  checkout payer page GET /c/{token} (reference)   ${fmt(checkoutPage.result.rps)} req/s, p50 ${fmt(checkoutPage.result.p50, 2)} ms, p99 ${fmt(checkoutPage.result.p99, 2)} ms${failedNote(checkoutPage)}`);
  }
  if (listSmall && listBig && list) {
    out(`  list p99 at ${SMALL_LIST_ROWS.toLocaleString("en")} intents   ${fmt(listSmall.result.p99, 2)} ms (p50 ${fmt(listSmall.result.p50, 2)} ms, ${fmt(listSmall.result.rps)} req/s)${failedNote(listSmall)}`);
    out(`  list p99 at ${LIST_ROWS.toLocaleString("en")} intents   ${fmt(listBig.result.p99, 2)} ms (p50 ${fmt(listBig.result.p50, 2)} ms, ${fmt(listBig.result.rps)} req/s)${failedNote(listBig)}`);
    out(`  (for reference: create / B1a ${ratios.createVsB1a?.toFixed(2) ?? "-"}; list at ${countCreated.toLocaleString("en")} intents p99 ${fmt(list.result.p99, 2)} ms)`);
  }
  if (observation) printObservation(observation, out, verdict);
  if (webhooks) {
    const { lag, throughput } = webhooks;
    out(`  webhook lag, commit to receiver, at ${lag.offeredPerS} creates/s   p50 ${fmt(lag.p50Ms, 1)} ms, p99 ${fmt(lag.p99Ms, 1)} ms, max ${fmt(lag.maxMs, 1)} ms   target p99 ≤ ${WEBHOOK_TARGETS.lagP99Ms} ms   ${verdict(lag.p99Ms <= WEBHOOK_TARGETS.lagP99Ms && lag.delivered >= lag.created)}`);
    out(`    (${lag.created} created, ${lag.failedCreates} failed creates, ${lag.delivered} delivered, ${lag.duplicates} duplicates)`);
    out(`  webhook deliveries of a backlog   ${throughput.delivered} of ${throughput.events} in ${fmt(throughput.seconds, 2)} s = ${fmt(throughput.perS)} /s   target ≥ ${WEBHOOK_TARGETS.deliveriesPerS} /s   ${verdict(throughput.perS >= WEBHOOK_TARGETS.deliveriesPerS && throughput.delivered >= throughput.events)}   (${throughput.duplicates} duplicates)`);
  }
  out();
  if (runs("mixed")) out(`Target: read p99 with logins vs without: read p99 with ${LOGINS_PER_S} logins/s / read p99 alone ≤ ${TARGETS.readP99WithLoginsVsAlone.toFixed(2)}, reads offered at ${pacedRate}/s = ${Math.round(READ_SHARE * 100)}% of flat out (pairs measured back to back; identity threads by nice value ${JSON.stringify(identityNices)})`);
  for (const [i, pair] of mixedPairs.entries()) {
    const { alone, mixed } = pair;
    const l = mixed.logins!;
    out(`  #${i + 1} read alone ${fmt(alone.result.rps)} req/s, p50 ${fmt(alone.result.p50, 2)} ms, p99 ${fmt(alone.result.p99, 2)} ms`);
    out(`     with logins ${fmt(mixed.result.rps)} req/s, p50 ${fmt(mixed.result.p50, 2)} ms, p99 ${fmt(mixed.result.p99, 2)} ms; logins ${l.ok} ok of ${l.started} started, ${fmt(l.completedInWindow / l.durationS)} /s answered within the window, p50 ${fmt(l.p50, 2)} ms, p99 ${fmt(l.p99, 2)} ms`);
    const p = ratios.readP99WithLogins[i]!;
    out(`     read p99 with ${LOGINS_PER_S} logins/s / read p99 alone   ${fmt(mixed.result.p99, 2)} / ${fmt(alone.result.p99, 2)} = ${p.value.toFixed(2)}   target ≤ ${TARGETS.readP99WithLoginsVsAlone.toFixed(2)}   ${verdict(p.met)}${failedNote(alone)}${failedNote(mixed)}${p.loginsOk ? "" : ` (but logins fell behind or failed: ${fmt(p.loginsAnsweredInWindowPerS)} /s answered within the window${Object.keys(l.failed).length ? `, failed ${JSON.stringify(l.failed)}` : ""})`}`);
  }
  if (pooled) {
    const allLoginsOk = ratios.readP99WithLogins.every((p) => p.loginsOk);
    out(`  all ${mixedPairs.length} pairs pooled (the judged figure): read p99 with logins / alone   ${fmt(pooled.mixed, 2)} / ${fmt(pooled.alone, 2)} = ${pooled.ratio.toFixed(2)}   target ≤ ${TARGETS.readP99WithLoginsVsAlone.toFixed(2)}   ${verdict(pooled.ratio <= TARGETS.readP99WithLoginsVsAlone)}${allLoginsOk ? "" : " (but logins fell behind or failed in some pair)"}`);
  }
  if (saturated) {
    const { alone, mixed } = saturated;
    const l = mixed.logins!;
    out(`  flat out (not judged: reads alone already take every core): read p99 ${fmt(mixed.result.p99, 2)} / ${fmt(alone.result.p99, 2)} = ${(mixed.result.p99 / alone.result.p99).toFixed(2)}, read ${fmt(mixed.result.rps)} / ${fmt(alone.result.rps)} req/s; logins ${fmt(l.completedInWindow / l.durationS)} /s answered within the window, p99 ${fmt(l.p99, 2)} ms${Object.keys(l.failed).length ? `, failed ${JSON.stringify(l.failed)}` : ""}`);
  }

  const resultsFile = path.join(tmpDir, "bench-results.json");
  await writeFile(
    resultsFile,
    `${JSON.stringify(
      {
        startedAt: startedAt.toISOString(),
        totalSeconds: (performance.now() - t0) / 1000,
        machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model.trim(), node: process.version, loadAverageAtEnd: os.loadavg() },
        settings: {
          connections: CONNECTIONS,
          durationS: DURATION_S,
          warmupS: WARMUP_S,
          listRows: LIST_ROWS,
          smallListRows: SMALL_LIST_ROWS,
          loginsPerS: LOGINS_PER_S,
          mixedRepeats: MIXED_REPEATS,
          mixedReadPercent: Math.round(READ_SHARE * 100),
          checkout: { sessions: runs("checkout") ? CHECKOUT_SESSIONS : null, RATE_LIMIT_PUBLIC_PER_IP: CHECKOUT_ENV.RATE_LIMIT_PUBLIC_PER_IP, RATE_LIMIT_PUBLIC_PER_TOKEN: CHECKOUT_ENV.RATE_LIMIT_PUBLIC_PER_TOKEN, RATE_LIMIT_WINDOW_S: CHECKOUT_ENV.RATE_LIMIT_WINDOW_S, rateLimitStore: "memory" },
          identity: { PROCESS_NICE: process.env.PROCESS_NICE ?? null, ARGON2_CONCURRENCY: process.env.ARGON2_CONCURRENCY ?? null, threadsByNice: identityNices },
        },
        seeding: { seconds: seedSeconds, vacuumAnalyzeSeconds: vacuumSeconds, plainCountMsAtListRows: plainCountMs, baselineSettleSeconds: baselineSettleSeconds ?? null, checkoutSetupSeconds: checkoutSetup?.seconds ?? null, checkoutSettleSeconds: checkoutSetup?.settleSeconds ?? null },
        scenarios: Object.fromEntries(
          scenarios.map((s) => [s.name, { label: s.label, ...s.result, latencies: undefined, cpuPercentOfOneCore: s.cpu, pgSessions: s.pgSessions, ...(s.logins ? { logins: s.logins } : {}) }]),
        ),
        ratios,
        observation: observation ?? null,
        webhooks: webhooks ?? null,
      },
      null,
      2,
    )}\n`,
  );
  out();
  out(`results in ${path.relative(REPO_ROOT, resultsFile)}; total ${elapsed()}`);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    out(`\n${signal}: stopping…`);
    void cleanup().then(() => process.exit(130));
  });
}

process.once("uncaughtException", (error) => {
  process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
  void cleanup().then(() => process.exit(1));
});

main().then(
  async () => {
    await cleanup();
    process.exit(0);
  },
  async (error) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await cleanup();
    process.exit(1);
  },
);
