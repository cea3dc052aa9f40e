import { migrate, openDatabase, type Database } from "@payin/db";
import { createLogger } from "@payin/logging";
import { mineBlocks, startAnvil, startLocalChains, transferToken, type AnvilChain, type LocalChains } from "@payin/local-chains";
import { railsFromEnv, type RailConfig } from "@payin/rails";
import { startRpcProxy, type RpcProxy } from "@payin/rpc-proxy";
import { createTestDatabase } from "@payin/testing";
import pg from "pg";
import { parseUnits, type Address, type Hex } from "viem";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { evmReader, RpcRateLimitedError } from "../src/chain/evm-reader.js";
import { Observer, type RailStatus } from "../src/observer/observer.js";
import { RailObserver, type PassOutcome } from "../src/observer/rail-observer.js";
import { WatchedSet } from "../src/observer/watched-set.js";
import { ObservationRepository } from "../src/store/observation-repository.js";
import { observerHealth } from "../src/store/observer-health.js";
import { ormOptions } from "../src/store/orm.js";
import { allocateTestAddress } from "./observer-support.js";
import { railControl } from "../src/store/rail-control.js";

/**
 * The observer's trust in its endpoints, on real anvil chains behind a real
 * JSON-RPC proxy process that injects the faults providers show: an invented
 * log, a second endpoint that disagrees or is down, another chain behind the
 * same URL, `finalized` = `latest`, logs that lag the head, duplicated logs,
 * a 429, a capped log range, an outage; and a reorganisation below the settled
 * point. Passes are driven by hand.
 */
let chains: LocalChains;
let databaseUrl: string;
let pool: pg.Pool;
let db: Database;
let store: ObservationRepository;
let bep20: RailConfig;
const proxies: RpcProxy[] = [];
const logger = createLogger("observer-trust-test", { level: "silent" });
let nextAddressIndex = 300;

beforeAll(async () => {
  databaseUrl = await createTestDatabase("observer_trust");
  await migrate(ormOptions(databaseUrl));
  pool = new pg.Pool({ connectionString: databaseUrl, max: 4, options: "-c search_path=allocation" });
  db = await openDatabase(ormOptions(databaseUrl, 4));
  store = new ObservationRepository(db);
  chains = await startLocalChains();
  bep20 = railsFromEnv(chains.env).rails.bep20;
});

afterAll(async () => {
  await Promise.all(proxies.map((p) => p.stop()));
  await chains?.stop();
  await pool?.end();
  await db?.close();
});

beforeEach(async () => {
  // Each test observes the rail afresh from the head.
  await pool.query(`delete from observation_outbox; delete from observed_transfers; delete from observed_blocks; delete from observer_cursors`);
});

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.stop()));
});

async function proxy(upstream = chains.rails.bep20.chain.url): Promise<RpcProxy> {
  const started = await startRpcProxy({ upstream });
  proxies.push(started);
  return started;
}

function observer(urls: readonly string[], overrides: Partial<RailConfig> = {}): RailObserver {
  const rail = { ...bep20, rpcUrls: urls, ...overrides };
  return new RailObserver({ rail, reader: evmReader({ urls, timeoutMs: 5_000, defaultRetryAfterMs: 1_000 }), store, watched: new WatchedSet(store), logger });
}

const allocate = () => allocateTestAddress(pool, "bep20", nextAddressIndex++);

/** Starts observing from the head and watches a new intent's address (two passes around a block). */
async function watching(o: RailObserver): Promise<{ intentUuid: string; address: Address }> {
  await o.pass();
  const allocated = await allocate();
  await mine(1);
  await o.pass();
  return allocated;
}

const local = () => chains.rails.bep20;
const usdt = () => local().tokens.usdt.address;
const pay = (to: Address, amount: string): Promise<Hex> => transferToken(local(), chains.payer, "usdt", to, amount);
const mine = (blocks: number) => mineBlocks(local(), blocks);
const head = async () => local().publicClient.getBlockNumber({ cacheTime: 0 });

interface Row {
  tx_hash: string;
  state: string;
  amount: string;
  vanished: boolean;
}

async function transfersTo(intentUuid: string): Promise<Row[]> {
  const { rows } = await pool.query<Row>(
    `select trim(tx_hash) as tx_hash, state, amount::text, vanished_at is not null as vanished from observed_transfers where intent_uuid = $1 order by block_number, log_index`,
    [intentUuid],
  );
  return rows;
}

async function outboxStates(intentUuid: string): Promise<string[]> {
  const { rows } = await pool.query(`select payload from observation_outbox where intent_uuid = $1 and kind = 'transfer' order by id`, [intentUuid]);
  return rows.map((r: { payload: { state: string } }) => r.payload.state);
}

async function cursorRow(): Promise<{ next_block: string; halted_kind: string | null; halted_reason: string | null; settled_through: string | null }> {
  const { rows } = await pool.query(`select next_block, halted_kind, halted_reason, settled_through from observer_cursors where rail = 'bep20'`);
  return rows[0];
}

/** Whether readiness counts the rail as observed now (allocation's own health source). */
async function observed(): Promise<boolean> {
  const advanced = await observerHealth(db).lastAdvanced();
  return advanced.has("bep20");
}

/** Passes until `done` says so (at most `passes`), mining a block between them. */
async function passUntil(o: RailObserver, done: (outcome: PassOutcome) => boolean | Promise<boolean>, passes = 20): Promise<PassOutcome> {
  let outcome: PassOutcome | undefined;
  for (let i = 0; i < passes; i++) {
    outcome = await o.pass();
    if (await done(outcome)) return outcome;
    await mine(1);
  }
  throw new Error(`not done after ${passes} passes; last: ${JSON.stringify(outcome, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}`);
}

describe("a transfer counts only once a second endpoint bears it out", () => {
  it("never credits a log an endpoint invented: the second endpoint has the block but no such transaction, so the rail halts and the log is orphaned", async () => {
    const liar = await proxy();
    const o = observer([liar.url, local().chain.url]);
    const { intentUuid, address } = await watching(o);
    const fakeBlock = Number(await head()) + 1;
    await mine(1);
    await liar.setFaults({ inventLogs: [{ contract: usdt(), from: chains.payer.address, to: address, value: parseUnits("10", 18).toString(), blockNumber: fakeBlock }] });
    await o.pass();
    expect(await transfersTo(intentUuid)).toEqual([expect.objectContaining({ state: "pending", amount: parseUnits("10", 18).toString() })]);
    const balance = await local().publicClient.readContract({ address: usdt(), abi: [{ type: "function", name: "balanceOf", stateMutability: "view", inputs: [{ type: "address" }], outputs: [{ type: "uint256" }] }], functionName: "balanceOf", args: [address] });
    expect(balance).toBe(0n);

    await mine(3); // the block is settled now
    const outcome = await o.pass();
    expect(outcome).toMatchObject({ kind: "halted", halt: { kind: "disagreement" } });
    const cursor = await cursorRow();
    expect(cursor.halted_kind).toBe("disagreement");
    expect(cursor.halted_reason).toMatch(/^endpoints disagree: the second endpoint has block \d+ but no receipt of transaction 0x[0-9a-f]{64}; nothing of it is credited, and 1 transfer the reporting endpoint no longer backs is orphaned$/);
    expect(cursor.halted_reason).not.toContain("127.0.0.1");
    expect(await transfersTo(intentUuid)).toEqual([expect.objectContaining({ state: "orphaned", vanished: true })]);
    expect(await outboxStates(intentUuid)).toEqual(["pending", "orphaned"]);
    expect(await observed()).toBe(false); // provider_not_ready

    // Halted: nothing is read while it stands, however the chain moves.
    const stoppedAt = (await cursorRow()).next_block;
    await mine(3);
    expect((await o.pass()).kind).toBe("halted");
    expect((await cursorRow()).next_block).toBe(stoppedAt);

    // The endpoint fixed, an operator resumes the rail: it reads on from where it stopped.
    await liar.setFaults({});
    expect(await railControl(db).resume("bep20", new Date())).toMatchObject({ kind: "disagreement" });
    const after = await o.pass();
    expect(after.kind).toBe("read");
    expect(await observed()).toBe(true);
    expect(await outboxStates(intentUuid)).toEqual(["pending", "orphaned"]);
  });

  it("asks an endpoint other than the one that reported a transfer, even after a failover made the reporter the other one", async () => {
    const liar = await proxy();
    const o = observer([liar.url, local().chain.url]);
    const { intentUuid, address } = await watching(o);
    const fakeBlock = Number(await head()) + 1;
    await mine(1);
    await liar.setFaults({ inventLogs: [{ contract: usdt(), from: chains.payer.address, to: address, value: parseUnits("10", 18).toString(), blockNumber: fakeBlock }] });
    await o.pass();
    expect(await transfersTo(intentUuid)).toEqual([expect.objectContaining({ state: "pending" })]);
    // The liar now answers 429: reads fail over to the honest endpoint, which becomes the one in use.
    await liar.setFaults({ inventLogs: [{ contract: usdt(), from: chains.payer.address, to: address, value: parseUnits("10", 18).toString(), blockNumber: fakeBlock }], rateLimit: { count: 1_000, retryAfterS: 60 } });
    await mine(3);
    const outcome = await o.pass();
    expect(outcome).toMatchObject({ kind: "halted", halt: { kind: "disagreement" } });
    // The reporter could not be asked (rate limited): nothing was orphaned on no answer, and nothing credited.
    expect(await transfersTo(intentUuid)).toEqual([expect.objectContaining({ state: "pending", vanished: false })]);
    expect(await outboxStates(intentUuid)).toEqual(["pending"]);
  });

  it("halts, crediting nothing, when the second endpoint's receipt is of another amount, and settles once the endpoints agree and the rail is resumed", async () => {
    const witness = await proxy();
    const o = observer([local().chain.url, witness.url]);
    const { intentUuid, address } = await watching(o);
    await witness.setFaults({ tamperReceipts: "otherValue" });
    await pay(address, "7");
    await mine(3);
    const outcome = await passUntil(o, (x) => x.kind === "halted");
    expect(outcome).toMatchObject({ halt: { kind: "disagreement", reason: expect.stringMatching(/is another transfer \(contract, sender, recipient or amount differ\); nothing of it is credited$/) } });
    // The reading endpoint still backs it: kept, pending, never settled.
    expect(await transfersTo(intentUuid)).toEqual([expect.objectContaining({ state: "pending", vanished: false })]);

    await witness.setFaults({});
    await railControl(db).resume("bep20", new Date());
    await passUntil(o, async () => (await transfersTo(intentUuid))[0]?.state === "settled");
    expect(await outboxStates(intentUuid)).toEqual(["pending", "settled"]);
  });

  it("keeps a transfer pending while no second endpoint can be asked, without halting, and settles it once one answers", async () => {
    const witness = await proxy();
    const o = observer([local().chain.url, witness.url]);
    const { intentUuid, address } = await watching(o);
    await witness.setFaults({ outage: true });
    await pay(address, "3");
    await mine(3);
    const waiting = await o.pass();
    await o.pass();
    const again = await o.pass();
    for (const x of [waiting, again]) expect(x.kind === "read" || x.kind === "caught-up").toBe(true);
    expect(again).toMatchObject({ confirmation: { waiting: 1, unavailable: expect.stringMatching(/^no second endpoint can confirm transfers/) } });
    expect(await transfersTo(intentUuid)).toEqual([expect.objectContaining({ state: "pending" })]);
    expect((await cursorRow()).halted_kind).toBeNull();

    await witness.setFaults({});
    const settled = await o.pass();
    expect(settled).toMatchObject({ confirmation: { asked: 1, waiting: 0, unavailable: null } });
    expect(await transfersTo(intentUuid)).toEqual([expect.objectContaining({ state: "settled" })]);
  });

  it("asks the second endpoint two calls per credited transfer (its block, its receipt)", async () => {
    const witness = await proxy();
    const o = observer([local().chain.url, witness.url]);
    const { intentUuid, address } = await watching(o);
    await pay(address, "1");
    await pay(address, "2");
    await o.pass();
    await witness.stats({ reset: true });
    await mine(3);
    await passUntil(o, async () => (await transfersTo(intentUuid)).every((t) => t.state === "settled"));
    const stats = await witness.stats();
    expect(stats.eth_getTransactionReceipt).toBe(2);
    expect(stats.eth_getBlockByNumber).toBeGreaterThanOrEqual(2);
  });
});

describe("the chain behind an endpoint is checked on every pass", () => {
  it("halts when the endpoint's upstream turns into another chain mid-run, crediting nothing of it, and observes again once it is the rail's chain again", async () => {
    const switching = await proxy();
    const o = observer([switching.url]);
    const { intentUuid, address } = await watching(o);
    // The same payer's USDT of the other local chain, to the same address.
    await switching.setUpstream(chains.rails.erc20.chain.url);
    await transferToken(chains.rails.erc20, chains.payer, "usdt", address, "5");
    await mineBlocks(chains.rails.erc20, 3);
    const outcome = await o.pass();
    expect(outcome).toMatchObject({ kind: "halted", halt: { kind: "chain_identity", reason: "the endpoint serves chain 1337001, not the configured 1337056" } });
    expect(await transfersTo(intentUuid)).toEqual([]);
    expect(await observed()).toBe(false);

    await switching.setUpstream(local().chain.url);
    await pay(address, "1");
    await passUntil(o, async () => (await transfersTo(intentUuid)).some((t) => t.state === "settled"));
    expect((await cursorRow()).halted_kind).toBeNull();
    expect(await observed()).toBe(true);
    expect((await transfersTo(intentUuid)).map((t) => t.amount)).toEqual([parseUnits("1", 18).toString()]);
  });

  it("halts when another chain with the same chain id (another genesis block) answers mid-run", async () => {
    const twin: AnvilChain = await startAnvil({ chainId: local().chain.chainId });
    try {
      const switching = await proxy();
      const o = observer([switching.url]);
      await o.pass();
      await switching.setUpstream(twin.url);
      const outcome = await o.pass();
      expect(outcome).toMatchObject({ kind: "halted", halt: { kind: "chain_identity", reason: expect.stringMatching(/^the endpoint serves a chain whose genesis block is 0x[0-9a-f]{64}, not 0x[0-9a-f]{64} \(another chain under the same id\)$/) } });
    } finally {
      await twin.stop();
    }
  });
});

describe("settlement never rests on one tag", () => {
  it("settles at head − confirmations when the endpoint's finalized block is its head", async () => {
    const eager = await proxy();
    await eager.setFaults({ finalizedIsLatest: true });
    const o = observer([eager.url]);
    const { intentUuid, address } = await watching(o);
    const tx = await pay(address, "4");
    const block = (await local().publicClient.getTransactionReceipt({ hash: tx })).blockNumber;
    const seen = await o.pass();
    expect(seen).toMatchObject({ kind: "read" });
    expect(seen.kind === "read" ? seen.settledUpTo : null).toBe(block - 2n);
    expect(await transfersTo(intentUuid)).toEqual([expect.objectContaining({ state: "pending" })]);
    await mine(1);
    await o.pass();
    expect(await transfersTo(intentUuid)).toEqual([expect.objectContaining({ state: "pending" })]);
    await mine(1);
    await o.pass();
    expect(await transfersTo(intentUuid)).toEqual([expect.objectContaining({ state: "settled" })]);
  });
});

describe("a lagging or sloppy provider loses nothing", () => {
  it("reads every payment behind a backend whose logs lag the head by three blocks", async () => {
    const lagging = await proxy();
    const o = observer([lagging.url]);
    const { intentUuid, address } = await watching(o);
    await lagging.setFaults({ lagLogs: { blocks: 3 } });
    const sent: Hex[] = [];
    for (let i = 1; i <= 6; i++) {
      sent.push(await pay(address, String(i)));
      await o.pass();
    }
    await mine(4);
    await passUntil(o, async () => (await transfersTo(intentUuid)).filter((t) => t.state === "settled").length === 6);
    expect((await transfersTo(intentUuid)).map((t) => t.tx_hash).sort()).toEqual([...sent].sort());
  });

  it("records a log an endpoint lists twice once, and goes on", async () => {
    const doubling = await proxy();
    await doubling.setFaults({ duplicateLogs: true });
    const o = observer([doubling.url]);
    const { intentUuid, address } = await watching(o);
    await pay(address, "2");
    await mine(40); // read by range, not only by hash
    await passUntil(o, async () => (await transfersTo(intentUuid)).some((t) => t.state === "settled"));
    expect(await transfersTo(intentUuid)).toHaveLength(1);
  });

  it("treats a 429 as a 429: waits its Retry-After, keeps the log range whole, or asks the next endpoint", async () => {
    const limited = await proxy();
    const alone = observer([limited.url]);
    await alone.pass();
    await mine(5);
    await limited.setFaults({ rateLimit: { count: 1, retryAfterS: 2 } });
    const error = await alone.pass().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RpcRateLimitedError);
    expect((error as RpcRateLimitedError).retryAfterMs).toBe(2_000);
    expect(alone.blockRange).toBe(bep20.maxBlockRange);

    // With a second endpoint, the pass goes on there.
    await pool.query(`delete from observer_cursors`);
    const two = observer([limited.url, local().chain.url]);
    await two.pass();
    await limited.setFaults({ rateLimit: { count: 5, retryAfterS: 30 } });
    await mine(2);
    expect((await two.pass()).kind).toBe("read");
  });

  it("halves the log range when a provider caps it, and keeps it halved for the passes after", async () => {
    const capped = await proxy();
    await capped.setFaults({ maxLogRange: { blocks: 10 } });
    const o = observer([capped.url], { maxBlockRange: 40 });
    const { intentUuid, address } = await watching(o);
    await pay(address, "6");
    await mine(120);
    await passUntil(o, async () => (await transfersTo(intentUuid)).some((t) => t.state === "settled"), 40);
    expect(o.blockRange).toBe(10);
  });
});

/**
 * Two watched intents on one observer; a snapshot at the fork point; then a
 * payment of `amount` to the first (`old`), observed and settled above it.
 * Reverting to the snapshot then reorganises below the settled point.
 */
async function settledAboveAFork(amount: string) {
  const o = observer([local().chain.url]);
  await o.pass();
  const old = await allocate();
  const fresh = await allocate();
  await mine(1);
  await o.pass();
  const forkPoint = await head();
  const snapshot = (await local().publicClient.request({ method: "evm_snapshot" as never })) as Hex;
  const gone = await pay(old.address, amount);
  await mine(8);
  await passUntil(o, async () => (await transfersTo(old.intentUuid))[0]?.state === "settled");
  return { o, old, fresh, forkPoint, snapshot, gone };
}

describe("a deep reorganisation loses nothing", () => {
  it("finds the true common ancestor below the settled point, halts for a finality violation, flags the settled transfer that vanished, and once resumed reads the payment of the new branch", async () => {
    const { o, old, fresh, forkPoint, snapshot, gone } = await settledAboveAFork("9");
    const settledThrough = BigInt((await cursorRow()).settled_through!);
    expect(settledThrough).toBeGreaterThan(forkPoint + 1n);
    const oldTip = await local().publicClient.getBlock({ blockNumber: settledThrough });

    // Another branch from the fork point, longer than the one observed, with a real payment in it.
    await local().publicClient.request({ method: "evm_revert" as never, params: [snapshot] as never });
    const kept = await pay(fresh.address, "11");
    await mine(15);
    expect((await local().publicClient.getBlock({ blockNumber: settledThrough })).hash).not.toBe(oldTip.hash);
    expect(await local().publicClient.getTransactionReceipt({ hash: gone }).catch(() => null)).toBeNull();

    const rewound = await o.pass();
    expect(rewound).toMatchObject({ kind: "rewound", finalityViolation: true, ancestor: forkPoint });
    const cursor = await cursorRow();
    expect(cursor.halted_kind).toBe("finality_violation");
    expect(cursor.halted_reason).toBe(
      `finality violation: the chain reorganised below its settled block ${settledThrough}; common ancestor ${forkPoint}; 1 settled transfer no longer on chain (orphaned); blocks above the ancestor are read again once an operator resumes the rail`,
    );
    expect(cursor.next_block).toBe(String(forkPoint + 1n));
    expect(await transfersTo(old.intentUuid)).toEqual([expect.objectContaining({ tx_hash: gone, state: "orphaned", vanished: true })]);
    expect(await outboxStates(old.intentUuid)).toEqual(["pending", "settled", "orphaned"]);
    const { rows: events } = await pool.query(`select payload from observation_outbox where intent_uuid = $1 and kind = 'transfer' order by id`, [old.intentUuid]);
    expect(events.map((e: { payload: { vanished?: boolean } }) => e.payload.vanished)).toEqual([false, false, true]);
    expect((await o.pass()).kind).toBe("halted");
    expect(await transfersTo(fresh.intentUuid)).toEqual([]);

    await railControl(db).resume("bep20", new Date());
    await passUntil(o, async () => (await transfersTo(fresh.intentUuid))[0]?.state === "settled");
    expect(await transfersTo(fresh.intentUuid)).toEqual([expect.objectContaining({ tx_hash: kept, state: "settled" })]);
  });
});

describe("a reorganisation deeper than every kept block", () => {
  it("walks back past the kept blocks to a block it knows is canonical, never above the fork, and reads the new branch once resumed", async () => {
    const { o, old, fresh, forkPoint, snapshot } = await settledAboveAFork("3");
    // Only the last block read is kept now: the fork lies below every kept block.
    await pool.query(`delete from observed_blocks where number < (select next_block - 1 from observer_cursors where rail = 'bep20')`);

    await local().publicClient.request({ method: "evm_revert" as never, params: [snapshot] as never });
    const kept = await pay(fresh.address, "4");
    await mine(15);
    const rewound = await o.pass();
    expect(rewound).toMatchObject({ kind: "rewound", finalityViolation: true });
    expect(rewound.kind === "rewound" ? rewound.ancestor : null).toBeLessThanOrEqual(forkPoint);
    expect((await cursorRow()).halted_reason).toMatch(/^finality violation: the chain reorganised below its settled block \d+, deeper than every kept block; common ancestor \d+; 1 settled transfer no longer on chain \(orphaned\)/);
    expect(await transfersTo(old.intentUuid)).toEqual([expect.objectContaining({ state: "orphaned", vanished: true })]);

    await railControl(db).resume("bep20", new Date());
    await passUntil(o, async () => (await transfersTo(fresh.intentUuid))[0]?.state === "settled", 40);
    expect(await transfersTo(fresh.intentUuid)).toEqual([expect.objectContaining({ tx_hash: kept, state: "settled" })]);
  });
});

describe("a provider outage never stops the observer", () => {
  it("starts with its endpoint down, says so on its status, and observes once the endpoint answers", async () => {
    const down = await proxy();
    await down.setFaults({ outage: true });
    const statuses: RailStatus[][] = [];
    const observerProcess = new Observer({
      databaseUrl,
      rails: { rails: { bep20: { ...bep20, rpcUrls: [down.url], pollIntervalMs: 100 }, erc20: { ...railsFromEnv(chains.env).rails.erc20, rpcUrls: [] } }, watchAfterExpiryMs: 0 },
      store,
      payins: { recordObservations: async () => ({ intents: [] }) as never },
      logger,
      relayIntervalMs: 60_000,
      readerOf: (rail) => evmReader({ urls: rail.rpcUrls, timeoutMs: 2_000 }),
    });
    await observerProcess.start();
    try {
      await waitFor(() => observerProcess.status().find((s) => s.rail === "bep20")?.lastError != null);
      statuses.push(observerProcess.status());
      expect(statuses[0]!.find((s) => s.rail === "bep20")).toMatchObject({ configured: true, endpoints: 1, lastPassAt: null, halted: null });
      expect(await observed()).toBe(false);
      await down.setFaults({});
      await waitFor(() => observerProcess.status().find((s) => s.rail === "bep20")?.lastPassAt != null);
      await waitFor(async () => await observed());
    } finally {
      await observerProcess.stop();
    }
  });
});

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
