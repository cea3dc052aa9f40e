/**
 * Baseline B1, run as its own process: the SQL a pay-in create runs (see
 * create-sql.ts), driven straight at PostgreSQL with `pg` (the driver MikroORM
 * uses underneath) by N concurrent clients, each with one connection per schema
 * as the services have, the same statements in the same order. Prints one JSON
 * line (a LoadResult) on stdout; tells the parent over IPC when measuring
 * starts and ends.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { listenForNotifications, type NotificationListener } from "@payin/db";
import { CLAIM_LEASE_MS, RELEASED_REUSE_MS } from "@payin/payins/store/pay-in-repository";
import { intentOutboxEvent } from "@payin/payins/events/outbox-events";
import { ALLOCATE, CLAIM_KEY, COMPLETE_KEY } from "./create-sql.js";
import { LatencyRecorder, printResult, quantile, type LoadResult } from "./stats.js";

export interface SqlLoadConfig {
  databaseUrl: string;
  connections: number;
  durationS: number;
  warmupS: number;
  merchantUuid: string;
  jurisdiction: string;
  /** Also payins' catch-up with merchant changes and the allocation statement, not only payins' own statements. */
  allServices: boolean;
}

const config = JSON.parse(process.env.BENCH_CHILD_CONFIG ?? "{}") as SqlLoadConfig;
/** The merchants schema's announcing channel (services/merchants/src/store/payin-context-feed.ts). */
const PAYIN_CONTEXT_CHANNEL = "merchants_payin_context";

async function connect(schema: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: config.databaseUrl, options: `-c search_path=${schema}` });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/**
 * merchants' listening connection (its pay-in context feed): one per process,
 * shared by every client; each create catches up on it, as payins' batches do
 * through GetPayinContextFeedPosition (calls of one turn share a round trip).
 */
async function listening(): Promise<NotificationListener> {
  let ready!: () => void;
  const listened = new Promise<void>((resolve) => (ready = resolve));
  const listener = listenForNotifications({
    url: config.databaseUrl,
    channel: PAYIN_CONTEXT_CHANNEL,
    onNotification: () => {},
    onListening: () => ready(),
    onLost: () => {},
  });
  await listened;
  return listener;
}

interface Connections {
  payins: pg.Client;
  /** merchants' feed's listening connection (shared). */
  listening: NotificationListener | null;
  allocation: pg.Client | null;
}

const prefix = randomBytes(6).toString("hex");
let sequence = 0;

async function createOnce(c: Connections): Promise<void> {
  const n = sequence++;
  const merchant = config.merchantUuid;
  const key = `b1-${prefix}-${n}`;
  const now = new Date();
  const asset = n % 2 === 0 ? "usdt" : "usdc";
  const rail = n % 2 === 0 ? "bep20" : "erc20";
  const requestHash = createHash("sha256").update(`${merchant}|${key}|${n}`).digest("hex");
  const [claim] = await Promise.all([
    c.payins.query({
      ...CLAIM_KEY,
      values: [merchant, key, requestHash, randomUUID(), now, new Date(now.getTime() - CLAIM_LEASE_MS), new Date(now.getTime() - RELEASED_REUSE_MS)],
    }),
    c.listening?.sync().then((caughtUp) => {
      if (!caughtUp) throw new Error("could not catch up on the listening connection");
    }),
  ]);
  const intentUuid = claim.rows[0]?.intent_uuid as string | undefined;
  if (!intentUuid) throw new Error("key not claimed");
  let address: string | null = null;
  let derivationPath: string | null = null;
  if (c.allocation) {
    const allocated = await c.allocation.query({ ...ALLOCATE, values: [merchant, intentUuid, rail, now] });
    if (!allocated.rows[0]) throw new Error("no address allocated");
    address = allocated.rows[0].address as string;
    derivationPath = allocated.rows[0].derivation_path as string;
  }
  const intent = {
    intentUuid, merchantUuid: merchant, status: "created", asset, rail, expectedAmount: `${10 + (n % 1000)}.25`, address,
    allocationReference: derivationPath, reference: `order-${prefix}-${n}`, jurisdiction: config.jurisdiction,
    createdAt: now, expiresAt: new Date(now.getTime() + 86_400_000), updatedAt: now,
  } as const;
  // Its created event, built as payins builds it, goes in with it (the statement's $15 and $16).
  const event = intentOutboxEvent(intent, 1, now, { type: "pay_in_intent.created" });
  const completed = await c.payins.query({
    ...COMPLETE_KEY,
    values: [
      intent.intentUuid, intent.merchantUuid, intent.status, intent.asset, intent.rail, intent.expectedAmount, intent.address,
      intent.allocationReference, intent.reference, intent.jurisdiction, intent.createdAt, intent.expiresAt, intent.updatedAt, key,
      event.eventUuid, event.data,
    ],
  });
  if (completed.rowCount !== 1) throw new Error("key not completed");
}

async function main(): Promise<void> {
  const shared = config.allServices ? await listening() : null;
  const clients: Connections[] = await Promise.all(
    Array.from({ length: config.connections }, async () => ({
      payins: await connect("payins"),
      listening: shared,
      allocation: config.allServices ? await connect("allocation") : null,
    })),
  );
  // One create first: when the services' SQL does not fit the schema (a
  // migration not applied), this fails with the database's own message.
  await createOnce(clients[0]!).catch((error: Error) => {
    throw new Error(`the services' create SQL (tools/bench/src/create-sql.ts) does not fit the schema: ${error.message}`);
  });
  const latencies = new LatencyRecorder();
  const errors: string[] = [];
  let errorCount = 0;
  let measuring = false;
  const start = performance.now();
  const measureFrom = start + config.warmupS * 1000;
  const measureUntil = measureFrom + config.durationS * 1000;
  const startTimer = setTimeout(() => {
    measuring = true;
    process.send?.({ phase: "measure-start" });
  }, measureFrom - start);

  await Promise.all(
    clients.map(async (connections) => {
      while (performance.now() < measureUntil) {
        const t0 = performance.now();
        try {
          await createOnce(connections);
          const t1 = performance.now();
          if (measuring && t1 <= measureUntil) latencies.record(t1 - t0);
        } catch (error) {
          if (measuring) errorCount++;
          if (errors.length < 5) errors.push((error as Error).message);
        }
      }
    }),
  );
  clearTimeout(startTimer);
  // Backends that end take their CPU time with them: close only once the parent
  // has read it.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2_000);
    process.once("message", () => {
      clearTimeout(timer);
      resolve();
    });
    if (process.send) process.send({ phase: "measure-end" });
    else resolve();
  });
  await Promise.all([...clients.flatMap((c) => [c.payins.end(), c.allocation?.end()]), shared?.close()]);
  const sorted = latencies.sorted();
  const out: LoadResult = {
    total: latencies.count + errorCount,
    ok: latencies.count,
    rps: latencies.count / config.durationS,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: quantile(sorted, 1),
    durationS: config.durationS,
    errors: errorCount,
    non2xx: 0,
    sampleErrors: errors,
  };
  await printResult(out);
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`sql-runner: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.stdout.write(`${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`);
    process.exit(1);
  },
);
