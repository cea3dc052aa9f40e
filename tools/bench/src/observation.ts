/**
 * The observation group: the platform's chain observer (its own process,
 * services/allocation/src/observer-main.ts, started as the platform starts it)
 * on a local anvil chain of its own, at 1,000 and then 100,000 watched
 * addresses, with the same load at each size:
 *
 *   live      a block a second on average (intervals drawn evenly from 0.5
 *             to 1.5 s, so that blocks fall at every point of the observer's
 *             poll cycle), mined by the bench, a few of the first ones paying
 *             one watched intent each: time from the block that settles
 *             a transfer (finalized = head − 2 on anvil) being mined to its
 *             intent being `paid` in payins' table, and JSON-RPC calls per block
 *             at that steady rate;
 *   catch-up  10,000 ERC-20 transfers (20 a block, to 500 of the watched
 *             addresses) mined while the observer's endpoint answers 503, then
 *             read by the observer in its own time: transfers matched per
 *             second and calls per block read; then, for a bounded window, how
 *             fast the relay carries the backlog's events to payins.
 *
 * The observer has two endpoints, as a deployment that wants every transfer
 * confirmed by a second one before it settles: two counting proxies in front
 * of the same anvil (each request of a batch counts). The reading endpoint's
 * calls are the calls per block; the second endpoint's are reported per
 * credited transfer. The bench's own calls go to anvil directly.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { HDKey } from "@scure/bip32";
import pg from "pg";
import { freePort } from "@payin/db-embedded";
import { OBSERVER, startProcess, stopProcess, type Platform, type RunningProcess } from "@payin/launcher";
import { startLocalChains, type LocalChains } from "@payin/local-chains";
import { CpuMeter } from "./cpu.js";
import { envInt, fmt, quantile } from "./stats.js";


/** What the group runs; BENCH_OBSERVATION_* override a few. */
export interface ObservationSettings {
  /** Watched addresses, the smaller size first: the ratios are the last over the first. */
  watched: number[];
  transfers: number;
  transfersPerBlock: number;
  /** Watched addresses the catch-up's transfers go to, in turn. */
  recipients: number;
  pollIntervalMs: number;
  /** The live run: blocks carrying payments, payments in each, and the mean ms between blocks. */
  paidBlocks: number;
  paymentsPerBlock: number;
  blockIntervalMs: number;
}

export function observationSettings(): ObservationSettings {
  const watchedText = process.env.BENCH_OBSERVATION_WATCHED || "1000,100000";
  const watched = watchedText.split(",").map((w) => Number(w.trim()));
  const settings: ObservationSettings = {
    watched,
    transfers: envInt("BENCH_OBSERVATION_TRANSFERS", 10_000, 1),
    transfersPerBlock: 20,
    recipients: 500,
    pollIntervalMs: envInt("BENCH_OBSERVATION_POLL_MS", 1_000, 50),
    paidBlocks: 40,
    paymentsPerBlock: 3,
    blockIntervalMs: 1_000,
  };
  const need = settings.recipients + settings.paidBlocks * settings.paymentsPerBlock;
  if (watched.length !== 2 || watched.some((w) => !Number.isInteger(w) || w < need) || watched[0]! >= watched[1]!) {
    throw new Error(`BENCH_OBSERVATION_WATCHED must be two sizes, the smaller first, each ≥ ${need}; got "${watchedText}"`);
  }
  return settings;
}

/** One size's figures. */
export interface ObservationSize {
  watched: number;
  seedSeconds: number;
  catchUp: {
    transfers: number;
    firstBlock: number;
    lastBlock: number;
    /** Blocks the observer read in the window (the backlog and the two empty blocks that settle it). */
    blocksRead: number;
    /** From the observer's first call after the endpoint answered again to the cursor past the backlog (transfers and cursor commit together). */
    seconds: number;
    transfersPerS: number;
    calls: number;
    callsPerBlock: number;
    callsByMethod: Record<string, number>;
    /** Calls to the second endpoint confirming the backlog's transfers before they settled, and per settled transfer. */
    witnessCalls: number;
    witnessCallsPerTransfer: number;
    cpuPercentOfOneCore: Record<string, number>;
    /** The relay of the backlog's events (pending and settled, two a transfer) to payins, from the backlog recorded to the end of the window. */
    relay: { seconds: number; events: number; delivered: number; eventsPerS: number; intents: number; intentsPaid: number };
  };
  live: {
    blocks: number;
    calls: number;
    callsPerBlock: number;
    callsByMethod: Record<string, number>;
    /** Calls to the second endpoint (confirming transfers before they settle), and per credited transfer. */
    witnessCalls: number;
    witnessCallsPerTransfer: number;
    samples: number;
    paid: number;
    /** Settling block mined → intent seen `paid` (polled every 50 ms), ms. */
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    cpuPercentOfOneCore: Record<string, number>;
  };
}

export interface ObservationResult {
  settings: ObservationSettings;
  sizes: ObservationSize[];
  /** Judged: calls per block, biggest size over smallest, while catching up and live; and each size's p99 to paid. */
  targets: {
    callsPerBlockCatchUp: { value: number; target: string; met: boolean; small: number; big: number };
    callsPerBlockLive: { value: number; target: string; met: boolean; small: number; big: number };
    paidP99Ms: { watched: number; value: number; target: string; met: boolean; samples: number; paid: number }[];
  };
}

export interface ObservationContext {
  databaseUrl: string;
  /** The platform's environment (its processes' ports, the database, the master secret). */
  env: Record<string, string>;
  logFile: string;
  platform: Platform;
  /** The postmaster's pid: PostgreSQL's CPU is its process tree's. */
  postgresPid: number;
  step: (text: string) => void;
  nodeArgs?: (name: string) => string[];
}

export const OBSERVATION_TARGETS = { callsPerBlockRatio: 2, paidP99OverPollMs: 1_000 };

const RAIL = "bep20";
/** Longest the relay of the backlog's events to payins is watched before the rest is dropped. */
const RELAY_WINDOW_MS = 20_000;
const out = (line = "") => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const word = (value: string | bigint) => (typeof value === "bigint" ? value.toString(16) : value.replace(/^0x/, "")).padStart(64, "0");
/** ERC-20 transfer(address,uint256) and TestToken's mint(address,uint256). */
const transferData = (to: string, value: bigint) => `0xa9059cbb${word(to)}${word(value)}`;
const mintData = (to: string, value: bigint) => `0x40c10f19${word(to)}${word(value)}`;
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/** JSON-RPC straight at anvil (the bench's own calls: not counted). */
class Rpc {
  private id = 0;
  constructor(private readonly url: string) {}

  async call<T = string>(method: string, params: unknown[] = []): Promise<T> {
    return (await this.batch<T>([[method, params]]))[0]!;
  }

  async batch<T = unknown>(calls: [string, unknown[]][]): Promise<T[]> {
    const body = calls.map(([method, params]) => ({ jsonrpc: "2.0", id: ++this.id, method, params }));
    const res = await fetch(this.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const answers = (await res.json()) as { id: number; result?: T; error?: { message: string } }[];
    const byId = new Map(answers.map((a) => [a.id, a]));
    return body.map((b) => {
      const answer = byId.get(b.id);
      if (!answer || answer.error) throw new Error(`${b.method}: ${answer?.error?.message ?? "no answer"}`);
      return answer.result as T;
    });
  }
}

/** Forwards JSON-RPC to anvil and counts every request (each of a batch); answers 503 while paused. */
class CountingProxy {
  calls = 0;
  readonly byMethod = new Map<string, number>();
  /** performance.now() of the first request forwarded since the last resume. */
  firstSinceResume: number | undefined;
  private paused = false;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<CountingProxy> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const proxy = new CountingProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on("request", (req, res) => proxy.handle(target, req, res));
    return proxy;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.firstSinceResume = undefined;
    this.paused = false;
  }

  snapshot(): { calls: number; byMethod: Map<string, number> } {
    return { calls: this.calls, byMethod: new Map(this.byMethod) };
  }

  /** Calls and calls by method since `before`. */
  since(before: { calls: number; byMethod: Map<string, number> }): { calls: number; byMethod: Record<string, number> } {
    const byMethod: Record<string, number> = {};
    for (const [method, n] of this.byMethod) {
      const d = n - (before.byMethod.get(method) ?? 0);
      if (d > 0) byMethod[method] = d;
    }
    return { calls: this.calls - before.calls, byMethod };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agent.destroy();
  }

  private handle(target: string, req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (this.paused) {
        res.writeHead(503, { "content-type": "text/plain" });
        res.end("paused by the bench");
        return;
      }
      const body = Buffer.concat(chunks);
      this.firstSinceResume ??= performance.now();
      try {
        const parsed = JSON.parse(body.toString("utf8")) as { method?: string } | { method?: string }[];
        for (const request of Array.isArray(parsed) ? parsed : [parsed]) {
          this.calls++;
          const method = request.method ?? "?";
          this.byMethod.set(method, (this.byMethod.get(method) ?? 0) + 1);
        }
      } catch {
        this.calls++;
      }
      const upstream = http.request(target, { method: "POST", agent: this.agent, headers: { "content-type": "application/json", "content-length": body.length } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, { "content-type": answer.headers["content-type"] ?? "application/json" });
        answer.pipe(res);
      });
      upstream.on("error", (error) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
        res.end(error.message);
      });
      upstream.end(body);
    });
  }
}

/** The pid of the anvil child of this process listening on `port` (Linux; undefined elsewhere). */
function anvilPid(port: number): number | undefined {
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        if (ppid !== process.pid) continue;
        const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
        if (args[0]?.endsWith("anvil") && args[args.indexOf("--port") + 1] === String(port)) return Number(entry);
      } catch {
        // gone
      }
    }
  } catch {
    // no /proc
  }
  return undefined;
}

/** What is running, for `stopObservation` on any exit. */
const running: { observer?: RunningProcess; chains?: LocalChains; proxy?: CountingProxy; witness?: CountingProxy; db?: pg.Client } = {};

/** Stops the observer, the proxy and the chains this group started (idempotent). */
export async function stopObservation(): Promise<void> {
  const { observer, chains, proxy, witness, db } = running;
  running.observer = running.chains = running.proxy = running.witness = running.db = undefined;
  await witness?.close().catch(() => {});
  if (observer) await stopProcess(observer).catch(() => {});
  await proxy?.close().catch(() => {});
  await chains?.stop().catch(() => {});
  await db?.end().catch(() => {});
}

/** Runs the group: at each size the live run, then the catch-up; resolves with the figures. */
export async function runObservation(ctx: ObservationContext, settings: ObservationSettings = observationSettings()): Promise<ObservationResult> {
  const { step } = ctx;
  const db = new pg.Client({ connectionString: ctx.databaseUrl });
  db.on("error", () => {});
  await db.connect();
  running.db = db;

  step(`observation: starting local anvil chains (test USDT/USDC), poll interval ${settings.pollIntervalMs} ms…`);
  const chains = await startLocalChains({ pollIntervalMs: settings.pollIntervalMs });
  running.chains = chains;
  const local = chains.rails[RAIL];
  const rpc = new Rpc(local.chain.url);
  const proxy = await CountingProxy.start(local.chain.url);
  running.proxy = proxy;
  const witness = await CountingProxy.start(local.chain.url);
  running.witness = witness;
  const token = local.tokens.usdt;
  const unit = 10n ** BigInt(token.decimals);
  // The observer watches this one rail, through the proxies (reading, then confirming); the other chain is not observed.
  const railEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(chains.env)) if (name.startsWith("BEP20_")) railEnv[name] = value;
  railEnv.BEP20_RPC_URL = "";
  railEnv.BEP20_RPC_URLS = `${proxy.url},${witness.url}`;
  railEnv.ERC20_RPC_URL = "";
  const chainId = Number(railEnv.BEP20_CHAIN_ID);

  // Funded senders: anvil's accounts (unlocked; anvil signs), each with its own nonce; account 0 mints.
  const accounts = await rpc.call<string[]>("eth_accounts");
  const nonces = new Map<string, number>();
  for (const account of accounts) nonces.set(account, Number(await rpc.call("eth_getTransactionCount", [account, "pending"])));
  const send = (from: string, data: string): [string, unknown[]] => {
    const nonce = nonces.get(from)!;
    nonces.set(from, nonce + 1);
    return ["eth_sendTransaction", [{ from, to: token.address, data, gas: hex(200_000), nonce: hex(nonce) }]];
  };
  const senders = accounts.slice(1);
  await rpc.call("evm_setAutomine", [false]);
  await rpc.batch(senders.map((s) => send(accounts[0]!, mintData(s, 1_000_000_000n * unit))));
  await rpc.call("evm_mine");
  let nextSender = 0;
  const sendTransfers = async (to: readonly string[]) => {
    if (to.length === 0) return;
    await rpc.batch(to.map((address) => send(senders[nextSender++ % senders.length]!, transferData(address, unit))));
  };
  const head = async () => BigInt(await rpc.call("eth_blockNumber"));
  const cursor = async () => {
    const { rows } = await db.query(`select next_block from allocation.observer_cursors where rail = $1`, [RAIL]);
    return rows[0] ? BigInt((rows[0] as { next_block: string }).next_block) : null;
  };
  const outboxSize = async () => Number((await db.query(`select count(*) as n from allocation.observation_outbox`)).rows[0]?.n);
  /** Read up to the head, and everything relayed. */
  const caughtUp = async () => {
    const next = await cursor();
    return next !== null && next > (await head()) && (await outboxSize()) === 0;
  };

  // The wallet the allocations hang on (a random account xpub: never used to derive here).
  const merchantUuid = (await db.query(`select gen_random_uuid() as id`)).rows[0]!.id as string;
  await db.query(`insert into allocation.wallets (merchant_uuid, xpub, next_index, created_at, updated_at) values ($1, $2, 0, now(), now())`, [
    merchantUuid,
    HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'").publicExtendedKey,
  ]);

  // The observer the platform started has no rail configured: this group runs its own.
  await ctx.platform.stop("observer");
  const cpu = new CpuMeter();
  for (const name of ["payins"]) cpu.track(name, ctx.platform.processes.get(name)?.child.pid);
  cpu.track("postgres", ctx.postgresPid, true);
  cpu.track("anvil", anvilPid(local.chain.port));
  cpu.track("bench", process.pid);
  const cores = os.cpus().length;

  const sizes: ObservationSize[] = [];
  let offset = 0;
  for (const watched of settings.watched) {
    const label = `observation, ${watched.toLocaleString("en")} watched`;
    // --- the watched set: exactly these allocations ---------------------------------------
    step(`${label}: seeding allocations and their intents with SQL…`);
    const seedStart = performance.now();
    const seeded = await seedWatched(db, merchantUuid, offset, watched, settings);
    offset += watched;
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const recipients = seeded.slice(0, settings.recipients);
    const samples = seeded.slice(settings.recipients, settings.recipients + settings.paidBlocks * settings.paymentsPerBlock);

    // --- a fresh observer process: loads the whole set, catches up with the head ----------
    const port = await freePort();
    const observer = await startProcess(OBSERVER, {
      env: { ...ctx.env, ...railEnv, OBSERVER_PORT: String(port) },
      output: ctx.logFile,
      extraCallers: ["test"],
      nodeArgs: ctx.nodeArgs,
    });
    running.observer = observer;
    cpu.track("observer", observer.child.pid);
    await waitFor(`${label}: the observer catching up with the head`, 60_000, caughtUp);

    // --- live: a block a second on average, payments in the first ones ----------------------
    step(`${label}: a block a second on average, ${settings.paymentsPerBlock} payments in each of the first ${settings.paidBlocks}…`);
    const live = await liveRun(rpc, db, proxy, witness, cpu, settings, samples, sendTransfers, token.address);
    out(
      `       settling block → paid: p50 ${fmt(live.p50Ms)} ms, p99 ${fmt(live.p99Ms)} ms, max ${fmt(live.maxMs)} ms (${live.paid} of ${live.samples} paid); ${live.calls} RPC calls for ${live.blocks} blocks = ${(live.calls / live.blocks).toFixed(2)} per block; second endpoint ${live.witnessCalls} calls = ${live.witnessCallsPerTransfer.toFixed(2)} per credited transfer`,
    );

    // --- catch-up: the backlog mined while the endpoint answers 503 -----------------------
    await waitFor(`${label}: the observer catching up after the live run`, 60_000, caughtUp);
    proxy.pause();
    witness.pause();
    await sleep(settings.pollIntervalMs + 500); // a pass under way ends
    const firstBlock = (await head()) + 1n;
    step(`${label}: mining ${settings.transfers.toLocaleString("en")} transfers, ${settings.transfersPerBlock} a block, to ${recipients.length} watched addresses (the observer's endpoint paused)…`);
    for (let i = 0; i < settings.transfers; i += settings.transfersPerBlock) {
      const to: string[] = [];
      for (let j = i; j < Math.min(settings.transfers, i + settings.transfersPerBlock); j++) to.push(recipients[j % recipients.length]!.address);
      await sendTransfers(to);
      await rpc.call("evm_mine");
    }
    const lastBlock = await head();
    // Two empty blocks: every block of the backlog is finalized (head − 2) when read.
    await rpc.call("anvil_mine", [hex(2)]);
    const logs = await rpc.call<unknown[]>("eth_getLogs", [{ address: token.address, topics: [TRANSFER_TOPIC], fromBlock: hex(firstBlock), toBlock: hex(lastBlock) }]);
    if (logs.length !== settings.transfers) throw new Error(`${label}: ${logs.length} Transfer logs in the backlog, expected ${settings.transfers}`);
    const cursorBefore = await cursor();
    if (cursorBefore !== firstBlock) throw new Error(`${label}: the observer's cursor is at ${cursorBefore}, not at the backlog's first block ${firstBlock}`);

    step(`${label}: the observer reads the ${(Number(lastBlock - firstBlock) + 1).toLocaleString("en")} blocks…`);
    const callsBefore = proxy.snapshot();
    const witnessBefore = witness.snapshot();
    const cpuBefore = cpu.snapshot();
    proxy.resume();
    witness.resume();
    let recorded: { at: number; next: bigint } | undefined;
    await waitFor(`${label}: the backlog recorded`, 300_000, async () => {
      const next = await cursor();
      if (next === null || next <= lastBlock) return false;
      recorded = { at: performance.now(), next };
      return true;
    });
    const cpuAfter = cpu.snapshot();
    const catchUpCalls = proxy.since(callsBefore);
    const seconds = (recorded!.at - proxy.firstSinceResume!) / 1000;
    const counted = Number(
      (await db.query(`select count(*) as n from allocation.observed_transfers where chain_id = $1 and block_number between $2 and $3`, [chainId, firstBlock.toString(), lastBlock.toString()]))
        .rows[0]?.n,
    );
    if (counted !== settings.transfers) throw new Error(`${label}: the observer recorded ${counted} of the ${settings.transfers} transfers`);
    const blocksRead = Number(recorded!.next - firstBlock);
    out(`       ${fmt(settings.transfers / seconds)} transfers matched/s (${seconds.toFixed(2)} s); ${catchUpCalls.calls} RPC calls for ${blocksRead} blocks = ${(catchUpCalls.calls / blocksRead).toFixed(3)} per block`);

    // The backlog owes payins two events a transfer (pending, then settled): how
    // fast the relay delivers them, until the outbox is empty or for at most a
    // bounded window; what is left then is dropped.
    step(`${label}: relaying the backlog's events to payins (at most ${RELAY_WINDOW_MS / 1000} s)…`);
    const pendingInBacklog = async () =>
      Number(
        (
          await db.query(`select count(*) as n from allocation.observed_transfers where chain_id = $1 and state = 'pending' and block_number between $2 and $3`, [
            chainId,
            firstBlock.toString(),
            lastBlock.toString(),
          ])
        ).rows[0]?.n,
      );
    while (performance.now() - recorded!.at < RELAY_WINDOW_MS) {
      if ((await pendingInBacklog()) === 0 && (await outboxSize()) === 0) break;
      await sleep(100);
    }
    const relaySeconds = (performance.now() - recorded!.at) / 1000;
    // Every transfer of the backlog confirmed by the second endpoint and settled (the next size starts with none pending): its calls per credited transfer.
    await waitFor(`${label}: the backlog confirmed and settled`, 300_000, async () => (await pendingInBacklog()) === 0);
    const settledSeconds = (performance.now() - recorded!.at) / 1000;
    const settledInBacklog = settings.transfers;
    const catchUpWitnessCalls = witness.since(witnessBefore).calls;
    out(
      `       second endpoint: ${catchUpWitnessCalls.toLocaleString("en")} calls to confirm the ${settledInBacklog.toLocaleString("en")} transfers = ${(catchUpWitnessCalls / settledInBacklog).toFixed(2)} per credited transfer; all settled ${settledSeconds.toFixed(1)} s after the backlog was read`,
    );
    const eventsDelivered = 2 * settings.transfers - (await outboxSize());
    const intentsPaid = Number(
      (await db.query(`select count(*) as n from payins.pay_in_intents where intent_uuid = any($1::uuid[]) and status = 'paid'`, [recipients.map((r) => r.intentUuid)])).rows[0]
        ?.n,
    );
    out(`       relayed ${eventsDelivered.toLocaleString("en")} of ${(2 * settings.transfers).toLocaleString("en")} events to payins in ${relaySeconds.toFixed(1)} s = ${fmt(eventsDelivered / relaySeconds)} /s; ${intentsPaid} of ${recipients.length} intents paid`);
    await stopProcess(observer);
    running.observer = undefined;
    cpu.untrack("observer");
    await db.query(`delete from allocation.observation_outbox`);
    sizes.push({
      watched,
      seedSeconds,
      catchUp: {
        transfers: settings.transfers,
        firstBlock: Number(firstBlock),
        lastBlock: Number(lastBlock),
        blocksRead,
        seconds,
        transfersPerS: settings.transfers / seconds,
        calls: catchUpCalls.calls,
        callsPerBlock: catchUpCalls.calls / blocksRead,
        callsByMethod: catchUpCalls.byMethod,
        witnessCalls: catchUpWitnessCalls,
        witnessCallsPerTransfer: catchUpWitnessCalls / Math.max(1, settledInBacklog),
        cpuPercentOfOneCore: CpuMeter.usage(cpuBefore, cpuAfter, cores),
        relay: { seconds: relaySeconds, events: 2 * settings.transfers, delivered: eventsDelivered, eventsPerS: eventsDelivered / relaySeconds, intents: recipients.length, intentsPaid },
      },
      live,
    });
  }
  await stopObservation();

  const small = sizes[0]!;
  const big = sizes.at(-1)!;
  const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.POSITIVE_INFINITY);
  const limit = OBSERVATION_TARGETS.callsPerBlockRatio;
  const catchUpRatio = ratio(big.catchUp.callsPerBlock, small.catchUp.callsPerBlock);
  const liveRatio = ratio(big.live.callsPerBlock, small.live.callsPerBlock);
  const p99Limit = settings.pollIntervalMs + OBSERVATION_TARGETS.paidP99OverPollMs;
  return {
    settings,
    sizes,
    targets: {
      callsPerBlockCatchUp: { value: catchUpRatio, target: `<= ${limit}`, met: catchUpRatio <= limit, small: small.catchUp.callsPerBlock, big: big.catchUp.callsPerBlock },
      callsPerBlockLive: { value: liveRatio, target: `<= ${limit}`, met: liveRatio <= limit, small: small.live.callsPerBlock, big: big.live.callsPerBlock },
      paidP99Ms: sizes.map((s) => ({
        watched: s.watched,
        value: s.live.p99Ms,
        target: `<= ${p99Limit}`,
        met: s.live.paid === s.live.samples && s.live.p99Ms <= p99Limit,
        samples: s.live.samples,
        paid: s.live.paid,
      })),
    },
  };
}

async function waitFor(what: string, timeoutMs: number, done: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

interface SeededIntent {
  intentUuid: string;
  /** Lower case. */
  address: string;
}

/**
 * Makes the watched set exactly `count` allocations of the bench's wallet, in
 * SQL: every earlier allocation (this group's previous size, the other groups'
 * creates) is armed and its watch ended; the new ones are armed (as the
 * observer leaves an allocation after its first read) and watched, created one
 * second apart back from now, each with its intent in payins, awaiting payment,
 * due in a day. The catch-up's recipients expect what they are sent; every
 * other intent 1 token, paid by one transfer. Answers the first ones in index
 * order: the recipients, then the live run's samples.
 */
async function seedWatched(db: pg.Client, merchantUuid: string, offset: number, count: number, settings: ObservationSettings): Promise<SeededIntent[]> {
  await db.query(
    `update allocation.allocations set armed_at = coalesce(armed_at, now()), armed_from_block = coalesce(armed_from_block, 0), watch_until = now()
      where watch_until is null or watch_until > now()`,
  );
  // As the list merchants are seeded: triggers off for the bulk insert (superuser
  // only), the counters given the same totals in the same statement.
  await db.query("begin");
  await db.query("set local session_replication_role = replica");
  await db.query(
    `with a as (
       insert into allocation.allocations (intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at, armed_at, armed_from_block, watch_until)
       select gen_random_uuid(), $1, $2::int + g, '0x' || left(md5('observation:' || ($2::int + g)) || md5('observation+' || ($2::int + g)), 40), $4,
              'm/44''/60''/0''/0/' || ($2::int + g), now() - make_interval(secs => $3::int - g), now(), 0, null
         from generate_series(0, $3::int - 1) g
       returning intent_uuid, merchant_uuid, address_index, address, created_at
     ), i as (
       insert into payins.pay_in_intents (intent_uuid, merchant_uuid, status, asset, rail, expected_amount, address,
              allocation_reference, reference, jurisdiction, created_at, expires_at, updated_at)
       select intent_uuid, merchant_uuid, 'awaiting_payment', 'usdt', $4,
              case when address_index - $2::int < $6::int then $5::int / $6::int + case when address_index - $2::int < $5::int % $6::int then 1 else 0 end else 1 end,
              address, null, 'observation-' || address_index, 'DE', created_at, now() + interval '1 day', created_at
         from a
       returning merchant_uuid, status, asset
     )
     insert into payins.pay_in_intent_counts (merchant_uuid, status, asset, slot, n)
     select merchant_uuid, status, asset, 0, count(*) from i group by 1, 2, 3
     on conflict (merchant_uuid, status, asset, slot) do update set n = pay_in_intent_counts.n + excluded.n`,
    [merchantUuid, offset, count, RAIL, settings.transfers, settings.recipients],
  );
  await db.query("commit");
  const watched = Number(
    (await db.query(`select count(*) as n from allocation.allocations where watch_until is null or watch_until > now()`)).rows[0]?.n,
  );
  const rows = Number((await db.query(`select count(*) as n from payins.pay_in_intents where merchant_uuid = $1`, [merchantUuid])).rows[0]?.n);
  const kept = Number((await db.query(`select sum(n) as n from payins.pay_in_intent_counts where merchant_uuid = $1`, [merchantUuid])).rows[0]?.n);
  if (watched !== count || rows !== kept) throw new Error(`seeding left ${watched} watched allocations (expected ${count}), ${rows} intents and counters of ${kept}`);
  await db.query(`vacuum (analyze) allocation.allocations, payins.pay_in_intents, payins.pay_in_intent_counts`);
  await db.query("checkpoint");
  const { rows: first } = await db.query(
    `select intent_uuid, address from allocation.allocations where merchant_uuid = $1 and address_index >= $2 and address_index < $3 order by address_index`,
    [merchantUuid, offset, offset + settings.recipients + settings.paidBlocks * settings.paymentsPerBlock],
  );
  return first.map((r: { intent_uuid: string; address: string }) => ({ intentUuid: r.intent_uuid, address: r.address.toLowerCase() }));
}

/**
 * Blocks mined by the bench `blockIntervalMs` apart on average (each interval
 * drawn evenly from half to one and a half of it: a fixed interval would keep
 * every block at nearly the same point of the observer's poll cycle over a
 * short run), `paymentsPerBlock` payments of one sample intent each in the first
 * `paidBlocks` of them, until every sample is paid (or a minute after the last
 * payment). A transfer in block b settles when the first block whose
 * `finalized` is b or above is mined; the latency is from then to the poll
 * (every 50 ms) that first sees the intent `paid`.
 */
async function liveRun(
  rpc: Rpc,
  db: pg.Client,
  proxy: CountingProxy,
  witness: CountingProxy,
  cpu: CpuMeter,
  settings: ObservationSettings,
  samples: readonly SeededIntent[],
  sendTransfers: (to: readonly string[]) => Promise<void>,
  tokenAddress: string,
): Promise<ObservationSize["live"]> {
  const minedAt = new Map<bigint, number>();
  const finalizedAt = new Map<bigint, bigint>();
  const paidAt = new Map<string, number>();
  let polling = true;
  const poll = (async () => {
    while (polling) {
      const waiting = samples.filter((s) => !paidAt.has(s.intentUuid)).map((s) => s.intentUuid);
      if (waiting.length > 0) {
        const { rows } = await db.query(`select intent_uuid from payins.pay_in_intents where intent_uuid = any($1::uuid[]) and status = 'paid'`, [waiting]);
        const at = performance.now();
        for (const row of rows as { intent_uuid: string }[]) paidAt.set(row.intent_uuid, at);
      }
      await sleep(50);
    }
  })();
  const callsBefore = proxy.snapshot();
  const witnessBefore = witness.snapshot();
  const cpuBefore = cpu.snapshot();
  let due = performance.now();
  let first: bigint | undefined;
  let last = 0n;
  let blocks = 0;
  const lastPaymentTick = settings.paidBlocks - 1;
  for (let tick = 0; ; tick++) {
    if (tick > 0) {
      due += settings.blockIntervalMs * (0.5 + Math.random());
      if (due > performance.now()) await sleep(due - performance.now());
    }
    if (tick <= lastPaymentTick) {
      await sendTransfers(samples.slice(tick * settings.paymentsPerBlock, (tick + 1) * settings.paymentsPerBlock).map((s) => s.address));
    }
    await rpc.call("evm_mine");
    const at = performance.now();
    const [number, finalized] = await rpc.batch<string | { number: string }>([
      ["eth_blockNumber", []],
      ["eth_getBlockByNumber", ["finalized", false]],
    ]);
    last = BigInt(number as string);
    first ??= last;
    minedAt.set(last, at);
    finalizedAt.set(last, BigInt((finalized as { number: string }).number));
    blocks++;
    if (tick > lastPaymentTick + 2 && paidAt.size === samples.length) break;
    if (tick > lastPaymentTick + 60) break;
  }
  const cpuAfter = cpu.snapshot();
  const calls = proxy.since(callsBefore);
  const witnessCalls = witness.since(witnessBefore).calls;
  polling = false;
  await poll;

  // Each sample's transfer, by its block.
  const logs = await rpc.call<{ topics: string[]; blockNumber: string }[]>("eth_getLogs", [
    { address: tokenAddress, topics: [TRANSFER_TOPIC], fromBlock: hex(first!), toBlock: hex(last) },
  ]);
  const blockOf = new Map(logs.map((log) => [`0x${log.topics[2]!.slice(26)}`, BigInt(log.blockNumber)]));
  const settledAt = (block: bigint): number | undefined => {
    for (let h = block; h <= last; h++) if ((finalizedAt.get(h) ?? -1n) >= block) return minedAt.get(h);
    return undefined;
  };
  // A sample not paid by the end counts as slower than every paid one.
  const latencies = samples.map((sample) => {
    const block = blockOf.get(sample.address);
    const settled = block === undefined ? undefined : settledAt(block);
    const paid = paidAt.get(sample.intentUuid);
    return settled !== undefined && paid !== undefined ? paid - settled : Number.POSITIVE_INFINITY;
  });
  const sorted = Float64Array.from(latencies).sort();
  return {
    blocks,
    calls: calls.calls,
    callsPerBlock: calls.calls / blocks,
    callsByMethod: calls.byMethod,
    witnessCalls,
    witnessCallsPerTransfer: witnessCalls / samples.length,
    samples: samples.length,
    paid: latencies.filter(Number.isFinite).length,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    maxMs: sorted.at(-1) ?? 0,
    cpuPercentOfOneCore: CpuMeter.usage(cpuBefore, cpuAfter, os.cpus().length),
  };
}

/** The group's lines of the report (under "Targets"). */
export function printObservation(result: ObservationResult, print: (line?: string) => void, verdict: (ok: boolean) => string): void {
  const { settings, sizes, targets } = result;
  const n = (v: number) => v.toLocaleString("en");
  const blocks = Math.ceil(settings.transfers / settings.transfersPerBlock);
  print(
    `  observation (anvil, one rail, poll interval ${n(settings.pollIntervalMs)} ms): live = a block a second on average, ${settings.paymentsPerBlock} payments in each of the first ${settings.paidBlocks}; catch-up = ${n(settings.transfers)} transfers in ${n(blocks)} blocks to ${n(settings.recipients)} watched addresses, read as a backlog`,
  );
  for (const s of sizes) {
    const c = s.catchUp;
    print(
      `    ${n(s.watched).padStart(7)} watched: live ${s.live.callsPerBlock.toFixed(2)} RPC calls/block, settling block → paid p50 ${fmt(s.live.p50Ms)} ms; catch-up ${fmt(c.transfersPerS)} transfers matched/s (${c.seconds.toFixed(2)} s), ${c.callsPerBlock.toFixed(3)} RPC calls/block (${c.calls} for ${c.blocksRead} blocks), second endpoint ${c.witnessCallsPerTransfer.toFixed(2)} calls per credited transfer (live ${s.live.witnessCallsPerTransfer.toFixed(2)}); relay to payins ${fmt(c.relay.eventsPerS)} events/s (${c.relay.delivered.toLocaleString("en")} of ${c.relay.events.toLocaleString("en")} in ${c.relay.seconds.toFixed(1)} s; ${c.relay.intentsPaid} of ${c.relay.intents} intents paid)`,
    );
  }
  const t = targets;
  const small = n(sizes[0]!.watched);
  const big = n(sizes.at(-1)!.watched);
  print(
    `  observation: RPC calls per block reading the backlog, ${big} vs ${small} watched   ${t.callsPerBlockCatchUp.big.toFixed(3)} / ${t.callsPerBlockCatchUp.small.toFixed(3)} = ${t.callsPerBlockCatchUp.value.toFixed(2)}   target ≤ ${OBSERVATION_TARGETS.callsPerBlockRatio}   ${verdict(t.callsPerBlockCatchUp.met)}`,
  );
  print(
    `  observation: RPC calls per block at a block a second on average, ${big} vs ${small} watched   ${t.callsPerBlockLive.big.toFixed(2)} / ${t.callsPerBlockLive.small.toFixed(2)} = ${t.callsPerBlockLive.value.toFixed(2)}   target ≤ ${OBSERVATION_TARGETS.callsPerBlockRatio}   ${verdict(t.callsPerBlockLive.met)}`,
  );
  for (const [i, p] of t.paidP99Ms.entries()) {
    const s = sizes[i]!;
    print(
      `  observation: settling block → paid, p99 at ${n(p.watched)} watched   ${fmt(p.value)} ms (p50 ${fmt(s.live.p50Ms)} ms, max ${fmt(s.live.maxMs)} ms, ${p.paid} of ${p.samples} intents paid)   target ≤ ${n(settings.pollIntervalMs + OBSERVATION_TARGETS.paidP99OverPollMs)} ms (poll interval + 1 s)   ${verdict(p.met)}`,
    );
  }
}
