import { migrate, openDatabase, type Database } from "@payin/db";
import { createLogger } from "@payin/logging";
import { compileTestToken, mineBlocks, startLocalChains, transferToken, type LocalChains, type LocalRail } from "@payin/local-chains";
import { railsFromEnv, type RailsConfig } from "@payin/rails";
import { createTestDatabase } from "@payin/testing";
import pg from "pg";
import { encodeFunctionData, erc20Abi, parseUnits, type Address, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evmReader } from "../src/chain/evm-reader.js";
import { describeRpcError } from "../src/observer/observer.js";
import { RailObserver } from "../src/observer/rail-observer.js";
import { WatchedSet } from "../src/observer/watched-set.js";
import { ObservationRepository, type ObservationEvent } from "../src/store/observation-repository.js";
import { ormOptions } from "../src/store/orm.js";
import { allocateTestAddress } from "./observer-support.js";

/**
 * The observer on real anvil chains and a real PostgreSQL: each test drives
 * passes by hand (no timers), mining blocks where it needs them.
 */
let chains: LocalChains;
let config: RailsConfig;
let pool: pg.Pool;
let store: ObservationRepository;
let db: Database;
const logger = createLogger("observer-test", { level: "silent" });
let nextAddressIndex = 100;

beforeAll(async () => {
  const url = await createTestDatabase("observer");
  await migrate(ormOptions(url));
  pool = new pg.Pool({ connectionString: url, max: 4, options: "-c search_path=allocation" });
  db = await openDatabase(ormOptions(url, 4));
  store = new ObservationRepository(db);
  chains = await startLocalChains();
  config = railsFromEnv(chains.env);
});

afterAll(async () => {
  await chains?.stop();
  await pool?.end();
  await db?.close();
});

function observerOf(rail: "bep20" | "erc20"): RailObserver {
  const railConfig = config.rails[rail];
  return new RailObserver({ rail: railConfig, reader: evmReader({ urls: railConfig.rpcUrls }), store, watched: new WatchedSet(store), logger });
}

/** An allocated address (a fresh anvil account's, so tests can also spend from it) for a new intent on `rail`. */
const allocate = (rail: "bep20" | "erc20") => allocateTestAddress(pool, rail, nextAddressIndex++);

const pay = (local: LocalRail, asset: "usdt" | "usdc", to: Address, amount: string): Promise<Hex> => transferToken(local, chains.payer, asset, to, amount);
const mine = mineBlocks;

async function eventsFor(intentUuid: string): Promise<ObservationEvent[]> {
  const { rows } = await pool.query(`select payload from observation_outbox where intent_uuid = $1 order by id`, [intentUuid]);
  return rows.map((r: { payload: ObservationEvent }) => r.payload);
}

interface StoredTransfer {
  tx_hash: string;
  log_index: number;
  rail: string;
  asset: string;
  amount: string;
  state: string;
  version: number;
  block_hash: string;
  block_number: string;
  dust: boolean;
}

async function transfersOf(intentUuid: string): Promise<StoredTransfer[]> {
  const { rows } = await pool.query<StoredTransfer>(
    `select tx_hash, log_index, rail, asset, amount, state, version, block_hash, block_number, dust
       from observed_transfers where intent_uuid = $1 order by block_number, log_index`,
    [intentUuid],
  );
  return rows.map((r) => ({ ...r, tx_hash: r.tx_hash.trim(), block_hash: r.block_hash.trim() }));
}

describe("the chain observer", () => {
  it("arms a new address, records its transfer with its block, and settles it once the chain finalizes the block", async () => {
    const observer = observerOf("bep20");
    await observer.pass(); // the cursor starts at the head
    const { intentUuid, address } = await allocate("bep20");
    await mine(chains.rails.bep20, 1);
    await observer.pass();
    expect((await eventsFor(intentUuid)).map((e) => e.kind)).toEqual(["armed"]);

    const tx = await pay(chains.rails.bep20, "usdt", address, "12.5");
    const read = await observer.pass();
    expect(read).toMatchObject({ kind: "read", transfers: 1 });
    const receipt = await chains.rails.bep20.publicClient.getTransactionReceipt({ hash: tx });
    expect(await transfersOf(intentUuid)).toEqual([
      expect.objectContaining({ tx_hash: tx, rail: "bep20", asset: "usdt", amount: parseUnits("12.5", 18).toString(), state: "pending", block_hash: receipt.blockHash, dust: false }),
    ]);

    await mine(chains.rails.bep20, 2); // finalized = head - 2: the transfer's block
    const settled = await observer.pass();
    expect(settled.kind === "read" || settled.kind === "caught-up" ? settled.settledUpTo : null).toBeGreaterThanOrEqual(receipt.blockNumber);
    expect((await transfersOf(intentUuid))[0]).toMatchObject({ state: "settled", version: 2 });
    const events = await eventsFor(intentUuid);
    expect(events.map((e) => (e.kind === "transfer" ? `${e.kind}:${e.state}` : e.kind))).toEqual(["armed", "transfer:pending", "transfer:settled"]);
  });

  it("ignores a token of the same symbol from another contract, and records the other watched tokens and rails as evidence", async () => {
    const bep20 = observerOf("bep20");
    const erc20 = observerOf("erc20");
    await bep20.pass();
    await erc20.pass();
    const { intentUuid, address } = await allocate("bep20");
    // A fake USDT: the same source, deployed by someone else.
    const artifact = await compileTestToken();
    const local = chains.rails.bep20;
    const deploy = await local.deployer.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args: ["Tether USD", "USDT", 18], account: chains.payer, chain: local.viemChain });
    const fake = (await local.publicClient.waitForTransactionReceipt({ hash: deploy })).contractAddress!;
    const mint = await local.deployer.writeContract({ address: fake, abi: artifact.abi, functionName: "mint", args: [address, 10n ** 20n], account: chains.payer, chain: local.viemChain });
    await local.publicClient.waitForTransactionReceipt({ hash: mint });
    await pay(local, "usdc", address, "3"); // wrong token, right chain
    await pay(chains.rails.erc20, "usdt", address, "4"); // the intent's asset on the wrong chain
    await pay(chains.rails.erc20, "usdc", address, "0.0001"); // dust
    await bep20.pass();
    await erc20.pass();
    const seen = await transfersOf(intentUuid);
    expect(seen.map((t) => [t.rail, t.asset, t.amount, t.dust])).toEqual(
      expect.arrayContaining([
        ["bep20", "usdc", parseUnits("3", 18).toString(), false],
        ["erc20", "usdt", "4000000", false],
        ["erc20", "usdc", "100", true],
      ]),
    );
    expect(seen).toHaveLength(3);
  });

  it("orphans a transfer reorganised out before settlement, and records it again, once, when it is included again", async () => {
    const observer = observerOf("erc20");
    const local = chains.rails.erc20;
    await observer.pass();
    const { intentUuid, address } = await allocate("erc20");
    const snapshot = (await local.publicClient.request({ method: "evm_snapshot" as never })) as Hex;
    // Signed once, so the same transaction (same hash) can be included again after the reorganisation.
    const request = await local.publicClient.prepareTransactionRequest({
      account: chains.payer,
      chain: local.viemChain,
      to: local.tokens.usdc.address,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [address, 5_000_000n] }),
    });
    const raw = await chains.payer.signTransaction(request as never);
    const tx = await local.publicClient.sendRawTransaction({ serializedTransaction: raw });
    const first = await local.publicClient.waitForTransactionReceipt({ hash: tx, pollingInterval: 20 });
    await observer.pass();
    expect(await transfersOf(intentUuid)).toEqual([expect.objectContaining({ tx_hash: tx, state: "pending", block_hash: first.blockHash })]);

    await local.publicClient.request({ method: "evm_revert" as never, params: [snapshot] as never });
    await mine(local, 2); // another branch, one block longer than the one reverted
    const replaced = await local.publicClient.getBlock({ blockNumber: first.blockNumber });
    expect(replaced.hash).not.toBe(first.blockHash);
    const rewound = await observer.pass();
    expect(rewound).toMatchObject({ kind: "rewound", orphaned: 1 });
    expect(await transfersOf(intentUuid)).toEqual([expect.objectContaining({ tx_hash: tx, state: "orphaned", version: 2 })]);
    await observer.pass();
    expect((await transfersOf(intentUuid))[0]).toMatchObject({ state: "orphaned" });

    // Included again, in another block: pending again under the same key, then settled; one row throughout.
    await local.publicClient.sendRawTransaction({ serializedTransaction: raw });
    const again = await local.publicClient.waitForTransactionReceipt({ hash: tx, pollingInterval: 20 });
    expect(again.blockHash).not.toBe(first.blockHash);
    await observer.pass();
    expect(await transfersOf(intentUuid)).toEqual([expect.objectContaining({ state: "pending", version: 3, block_hash: again.blockHash })]);
    await mine(local, 2);
    await observer.pass();
    expect(await transfersOf(intentUuid)).toEqual([expect.objectContaining({ state: "settled", version: 4, block_hash: again.blockHash })]);
    const states = (await eventsFor(intentUuid)).flatMap((e) => (e.kind === "transfer" ? [e.state] : []));
    expect(states).toEqual(["pending", "orphaned", "pending", "settled"]);
  });

  it("halts a rail whose endpoint serves another chain, or whose token has other decimals than configured, and reads nothing of it", async () => {
    const rail = config.rails.bep20;
    await pool.query(`delete from observer_cursors where rail = 'bep20'`);
    const wrongChain = new RailObserver({ rail: { ...rail, chainId: 97 }, reader: evmReader({ urls: rail.rpcUrls }), store, watched: new WatchedSet(store), logger });
    expect(await wrongChain.pass()).toMatchObject({ kind: "halted", halt: { kind: "chain_identity", reason: "the endpoint serves chain 1337056, not the configured 97" } });
    const wrongDecimals = new RailObserver({ rail: { ...rail, token: { ...rail.token, decimals: 6 } }, reader: evmReader({ urls: rail.rpcUrls }), store, watched: new WatchedSet(store), logger });
    expect(await wrongDecimals.pass()).toMatchObject({
      kind: "halted",
      halt: { kind: "configuration", reason: expect.stringMatching(/^usdt at 0x[0-9a-f]{40} has 18 decimals on chain, not the configured 6$/) },
    });
    const { rows } = await pool.query(`select halted_kind from observer_cursors where rail = 'bep20'`);
    expect(rows).toEqual([{ halted_kind: "configuration" }]);
    // Configured rightly again: the halt ends by itself at the next pass.
    expect((await observerOf("bep20").pass()).kind).not.toBe("halted");
    expect((await pool.query(`select halted_kind from observer_cursors where rail = 'bep20'`)).rows).toEqual([{ halted_kind: null }]);
  });
});

describe("what the observer says of an endpoint's failure", () => {
  it("never names the endpoint's URL (providers put API keys in it), in viem's errors or its own", async () => {
    const secretUrl = "http://127.0.0.1:9/v3/secret-api-key-123?token=also-secret";
    const reader = evmReader({ urls: [secretUrl], timeoutMs: 2_000 });
    const error = await reader.headNumber().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String((error as Error).message)).toContain("secret-api-key-123"); // viem's own message names it
    const said = describeRpcError(error, ["https://other.example/key", secretUrl]);
    expect(said).not.toMatch(/secret-api-key-123|also-secret/);
    expect(said.length).toBeGreaterThan(0);
    expect(describeRpcError(new Error(`request to ${secretUrl} failed\nmore`), [secretUrl])).toBe("request to <endpoint> failed");
  });
});
