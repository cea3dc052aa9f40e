import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Client } from "@connectrpc/connect";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { database, sql, type Database, type Queryable } from "@payin/db";
import { allocationBatcher, WalletRepository } from "../src/store/wallet-repository.js";
import { uuidv7 } from "@payin/ids";
import { createLogger } from "@payin/logging";
import { allocationV1 } from "@payin/proto";
import { Code, reasonOf } from "@payin/rpc";
import { expectFailure, failure, startServiceHarness } from "@payin/testing";
import { deriveAddress } from "../src/domain/hd.js";
import type { MerchantReadinessInputs, MerchantReadinessSource } from "../src/domain/readiness.js";
import { reasonCodes } from "../src/rpc/reason-codes.js";
import { createAllocationService } from "../src/service.js";
import { ormOptions } from "../src/store/orm.js";

const { AllocationService } = allocationV1;

/**
 * The merchant's side of readiness, as the merchants service would answer it.
 * (The merchants service itself answers it in the gateway's end-to-end tests;
 * here this tier tests what allocation decides from it.)
 */
const merchantInputs = new Map<string, MerchantReadinessInputs>();
/** The jurisdictions the merchants service was asked about, per merchant (null: merchant-wide). */
const askedFor = new Map<string, (string | null)[]>();
const merchantSide: MerchantReadinessSource = {
  readinessInputs: async (merchantUuid, jurisdiction) => {
    askedFor.set(merchantUuid, [...(askedFor.get(merchantUuid) ?? []), jurisdiction]);
    return merchantInputs.get(merchantUuid) ?? null;
  },
};

let db: Database;
let client: Client<typeof AllocationService>;

const devMaster = HDKey.fromMasterSeed(mnemonicToSeedSync("test test test test test test test test test test test junk"));
const DEV_XPUB = devMaster.derive("m/44'/60'/0'").publicExtendedKey;

/** The account xpub of a fresh random wallet. */
function randomXpub(): string {
  return HDKey.fromMasterSeed(randomBytes(32)).derive("m/44'/60'/0'").publicExtendedKey;
}

beforeAll(async () => {
  const harness = await startServiceHarness({ service: AllocationService, domain: "allocation", ormOptions, routes: (orm, logger) => createAllocationService({ db: (db = database(orm)), logger, merchants: merchantSide }), reasonCodes });
  client = harness.client;
});

afterAll(async () => {
  await db?.close();
});


async function nextIndex(merchantUuid: string): Promise<number> {
  return (await client.getWallet({ merchantUuid })).wallet!.nextIndex;
}

describe("AllocationService wallets", () => {
  it("sets, reads and replaces a wallet, keeping its counter", async () => {
    const merchantUuid = uuidv7();
    const set = await client.setWallet({ merchantUuid, xpub: randomXpub() });
    expect(set.wallet).toMatchObject({ merchantUuid, nextIndex: 0 });
    const read = await client.getWallet({ merchantUuid });
    expect(read.wallet?.xpub).toBe(set.wallet?.xpub);
    expect(read.wallet?.createdAt).toEqual(set.wallet?.createdAt);

    await client.allocateAddress({ merchantUuid, intentUuid: uuidv7(), rail: "bep20" });
    await client.allocateAddress({ merchantUuid, intentUuid: uuidv7(), rail: "erc20" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const replacement = randomXpub();
    const replaced = await client.setWallet({ merchantUuid, xpub: replacement });
    expect(replaced.wallet).toMatchObject({ merchantUuid, xpub: replacement, nextIndex: 2 });
    expect(replaced.wallet?.createdAt).toEqual(set.wallet?.createdAt);
    expect(replaced.wallet?.updatedAt).not.toEqual(set.wallet?.updatedAt);

    const third = await client.allocateAddress({ merchantUuid, intentUuid: uuidv7(), rail: "bep20" });
    expect(third.index).toBe(2);
    expect(third.address).toBe(deriveAddress(replacement, 2).address);
  });

  it("answers NOT_FOUND for a merchant without wallet and INVALID_ARGUMENT for a malformed uuid", async () => {
    const missing = await failure(client.getWallet({ merchantUuid: uuidv7() }));
    expect(missing.code).toBe(Code.NotFound);
    expect(reasonOf(missing)).toBe("WALLET_NOT_FOUND");
    for (const merchantUuid of ["", "not-a-uuid", uuidv7().toUpperCase()]) {
      const error = await failure(client.getWallet({ merchantUuid }));
      expect(error.code).toBe(Code.InvalidArgument);
      expect(reasonOf(error)).toBe("INVALID_ARGUMENT");
    }
  });

  it("refuses private keys, wrong depths and garbage without repeating them", async () => {
    const merchantUuid = uuidv7();
    for (const xpub of [
      devMaster.derive("m/44'/60'/0'").privateExtendedKey,
      devMaster.publicExtendedKey,
      devMaster.derive("m/44'/60'/0'/0").publicExtendedKey,
      devMaster.derive("m/44'/60'/5").publicExtendedKey,
      devMaster.derive("m/44'/60'").publicExtendedKey,
      "xpub-garbage",
      "",
    ]) {
      const error = await failure(client.setWallet({ merchantUuid, xpub }));
      expect(error.code).toBe(Code.InvalidArgument);
      expect(reasonOf(error)).toBe("WALLET_XPUB_INVALID");
      if (xpub) expect(error.rawMessage).not.toContain(xpub);
    }
    expect((await failure(client.getWallet({ merchantUuid }))).code).toBe(Code.NotFound);
  });

  it("refuses an xpub another merchant holds", async () => {
    const xpub = randomXpub();
    await client.setWallet({ merchantUuid: uuidv7(), xpub });
    const error = await failure(client.setWallet({ merchantUuid: uuidv7(), xpub }));
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(reasonOf(error)).toBe("WALLET_XPUB_IN_USE");
  });
});

describe("AllocationService.AllocateAddress", () => {
  it("derives xpub/0/index from the counter, idempotently on the intent", async () => {
    const merchantUuid = uuidv7();
    await client.setWallet({ merchantUuid, xpub: DEV_XPUB });
    const intentUuid = uuidv7();
    const first = await client.allocateAddress({ merchantUuid, intentUuid, rail: "bep20" });
    expect(first).toMatchObject({ address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", index: 0, derivationPath: "m/44'/60'/0'/0/0" });
    const retry = await client.allocateAddress({ merchantUuid, intentUuid, rail: "bep20" });
    expect(retry).toMatchObject({ address: first.address, index: 0, derivationPath: first.derivationPath });
    expect(await nextIndex(merchantUuid)).toBe(1);

    const second = await client.allocateAddress({ merchantUuid, intentUuid: uuidv7(), rail: "erc20" });
    expect(second).toMatchObject({ address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", index: 1, derivationPath: "m/44'/60'/0'/0/1" });
    expect(await nextIndex(merchantUuid)).toBe(2);
  });

  it("derives from any hardened account's xpub and names its true path", async () => {
    // Addresses of m/44'/60'/N'/0/i of the development mnemonic, computed by private
    // derivation from its seed (see the hd tests).
    const merchantUuid = uuidv7();
    await client.setWallet({ merchantUuid, xpub: devMaster.derive("m/44'/60'/7'").publicExtendedKey });
    const intentUuid = uuidv7();
    const first = await client.allocateAddress({ merchantUuid, intentUuid, rail: "bep20" });
    expect(first).toMatchObject({ address: "0xAF4311d557fBC876059e39306ec1f3343753df29", index: 0, derivationPath: "m/44'/60'/7'/0/0" });
    expect(await client.allocateAddress({ merchantUuid, intentUuid, rail: "bep20" })).toMatchObject({
      address: first.address,
      index: 0,
      derivationPath: "m/44'/60'/7'/0/0",
    });
    const second = await client.allocateAddress({ merchantUuid, intentUuid: uuidv7(), rail: "erc20" });
    expect(second).toMatchObject({ address: "0xd2378898c87F72dE22eb67673fD23889796C694E", index: 1, derivationPath: "m/44'/60'/7'/0/1" });
    const third = await client.allocateAddress({ merchantUuid, intentUuid: uuidv7(), rail: "erc20" });
    expect(third).toMatchObject({ address: "0x40cba5b7A6dC4fd081e247A64029Cb6B63DFB595", index: 2, derivationPath: "m/44'/60'/7'/0/2" });

    // What is stored says the same: the allocations and the pool rows derived ahead.
    const stored = await db.query(
      sql<{ derivation_path: string }>(`select address_index, address, derivation_path from allocations where merchant_uuid = $1 order by address_index`),
      [merchantUuid],
    );
    expect(stored.map((r) => r.derivation_path)).toEqual(["m/44'/60'/7'/0/0", "m/44'/60'/7'/0/1", "m/44'/60'/7'/0/2"]);
    const pool = await db.query(sql<{ address_index: number; derivation_path: string }>(`select address_index, derivation_path from address_pool where merchant_uuid = $1`), [
      merchantUuid,
    ]);
    expect(pool.length).toBeGreaterThan(0);
    for (const row of pool) expect(row.derivation_path).toBe(`m/44'/60'/7'/0/${row.address_index}`);

    // Replacing the key with another account's moves later paths to that account; the counter goes on.
    await client.setWallet({ merchantUuid, xpub: devMaster.derive("m/44'/60'/1'").publicExtendedKey });
    const fourth = await client.allocateAddress({ merchantUuid, intentUuid: uuidv7(), rail: "bep20" });
    expect(fourth).toMatchObject({ address: "0x9BF4beE5bfbEbb3a4b7060dAe40CA6fD49305D60", index: 3, derivationPath: "m/44'/60'/1'/0/3" });
  });

  it("answers WALLET_NOT_READY for a merchant without wallet", async () => {
    const error = await failure(client.allocateAddress({ merchantUuid: uuidv7(), intentUuid: uuidv7(), rail: "bep20" }));
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(reasonOf(error)).toBe("WALLET_NOT_READY");
  });

  it("refuses malformed arguments, and a retry naming another merchant or rail", async () => {
    const merchantUuid = uuidv7();
    await client.setWallet({ merchantUuid, xpub: randomXpub() });
    const other = uuidv7();
    await client.setWallet({ merchantUuid: other, xpub: randomXpub() });
    const intentUuid = uuidv7();
    await client.allocateAddress({ merchantUuid, intentUuid, rail: "bep20" });
    for (const request of [
      { merchantUuid, intentUuid: uuidv7(), rail: "trc20" },
      { merchantUuid, intentUuid: uuidv7(), rail: "" },
      { merchantUuid, intentUuid: "nope", rail: "bep20" },
      { merchantUuid: "nope", intentUuid: uuidv7(), rail: "bep20" },
      { merchantUuid: other, intentUuid, rail: "bep20" },
      { merchantUuid, intentUuid, rail: "erc20" },
    ]) {
      const error = await failure(client.allocateAddress(request));
      expect(error.code).toBe(Code.InvalidArgument);
      expect(reasonOf(error)).toBe("INVALID_ARGUMENT");
    }
    // Neither refused retry moved a counter.
    expect(await nextIndex(merchantUuid)).toBe(1);
    expect(await nextIndex(other)).toBe(0);
  });

  it("hands out distinct addresses with gap-free indexes under 200 concurrent calls over 4 merchants", async () => {
    const merchants = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const merchantUuid = uuidv7();
        const xpub = randomXpub();
        await client.setWallet({ merchantUuid, xpub });
        return { merchantUuid, xpub };
      }),
    );
    const intents = Array.from({ length: 200 }, (_, i) => ({ ...merchants[i % 4]!, intentUuid: uuidv7(), rail: i % 2 ? "bep20" : "erc20" }));
    // Every fifth intent is also sent twice more, concurrently with the rest.
    const calls = [...intents, ...intents.filter((_, i) => i % 5 === 0).flatMap((x) => [x, x])];
    for (let i = calls.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [calls[i], calls[j]] = [calls[j]!, calls[i]!];
    }
    const answers = await Promise.all(
      calls.map(async (c) => ({ c, r: await client.allocateAddress({ merchantUuid: c.merchantUuid, intentUuid: c.intentUuid, rail: c.rail }) })),
    );

    const byIntent = new Map<string, { address: string; index: number }>();
    for (const { c, r } of answers) {
      const seen = byIntent.get(c.intentUuid);
      if (seen) expect(r).toMatchObject(seen);
      else byIntent.set(c.intentUuid, { address: r.address, index: r.index });
      expect(r.address).toBe(deriveAddress(c.xpub, r.index).address);
      expect(r.derivationPath).toBe(`m/44'/60'/0'/0/${r.index}`);
    }
    expect(byIntent.size).toBe(200);
    expect(new Set([...byIntent.values()].map((a) => a.address)).size).toBe(200);
    for (const { merchantUuid } of merchants) {
      const indexes = intents
        .filter((x) => x.merchantUuid === merchantUuid)
        .map((x) => byIntent.get(x.intentUuid)!.index)
        .sort((a, b) => a - b);
      expect(indexes).toEqual(Array.from({ length: 50 }, (_, i) => i));
      expect(await nextIndex(merchantUuid)).toBe(50);
    }
  });

  it("gives concurrent calls for one intent one address and one index", async () => {
    const merchantUuid = uuidv7();
    await client.setWallet({ merchantUuid, xpub: randomXpub() });
    const intentUuid = uuidv7();
    const answers = await Promise.all(Array.from({ length: 25 }, () => client.allocateAddress({ merchantUuid, intentUuid, rail: "bep20" })));
    expect(new Set(answers.map((a) => a.address)).size).toBe(1);
    expect(answers.every((a) => a.index === 0)).toBe(true);
    expect(await nextIndex(merchantUuid)).toBe(1);
    const next = await client.allocateAddress({ merchantUuid, intentUuid: uuidv7(), rail: "bep20" });
    expect(next.index).toBe(1);
  });

  it("never hands out an address twice, even when two merchants' keys collide", async () => {
    const [first, second] = [uuidv7(), uuidv7()];
    const shared = randomXpub();
    await client.setWallet({ merchantUuid: first, xpub: shared });
    await client.allocateAddress({ merchantUuid: first, intentUuid: uuidv7(), rail: "bep20" });
    // The first merchant moves to another key, freeing the old one for the second.
    await client.setWallet({ merchantUuid: first, xpub: randomXpub() });
    await client.setWallet({ merchantUuid: second, xpub: shared });
    const error = await failure(client.allocateAddress({ merchantUuid: second, intentUuid: uuidv7(), rail: "bep20" }));
    expect(error.code).toBe(Code.FailedPrecondition);
    expect(reasonOf(error)).toBe("WALLET_XPUB_IN_USE");
    expect(await nextIndex(second)).toBe(0);
  });

  it("keeps indexes gap-free across many pool refills, and after the key is replaced", async () => {
    const merchantUuid = uuidv7();
    await client.setWallet({ merchantUuid, xpub: randomXpub() });
    const indexes: number[] = [];
    const addresses = new Set<string>();
    const allocateMany = async (count: number) => {
      for (let batch = 0; batch < count; batch += 30) {
        const results = await Promise.all(
          Array.from({ length: Math.min(30, count - batch) }, () =>
            client.allocateAddress({ merchantUuid, intentUuid: uuidv7(), rail: "erc20" }),
          ),
        );
        for (const r of results) {
          indexes.push(r.index);
          addresses.add(r.address);
        }
      }
    };
    await allocateMany(450);
    // A new key drops the old key's pre-derived addresses; the counter goes on.
    await client.setWallet({ merchantUuid, xpub: randomXpub() });
    await allocateMany(60);
    expect(indexes.sort((a, b) => a - b)).toEqual(Array.from({ length: 510 }, (_, i) => i));
    expect(addresses.size).toBe(510);
    expect(await nextIndex(merchantUuid)).toBe(510);
  });
});

describe("AllocationService.BatchAllocateAddresses", () => {
  it("answers each allocation as AllocateAddress would, in order, with one statement per merchant", async () => {
    const [shop, other, walletless] = [uuidv7(), uuidv7(), uuidv7()];
    const shopXpub = randomXpub();
    await client.setWallet({ merchantUuid: shop, xpub: shopXpub });
    const otherXpub = randomXpub();
    await client.setWallet({ merchantUuid: other, xpub: otherXpub });
    const earlier = uuidv7();
    const before = await client.allocateAddress({ merchantUuid: shop, intentUuid: earlier, rail: "bep20" });

    const requests = [
      { merchantUuid: shop, intentUuid: uuidv7(), rail: "bep20" },
      { merchantUuid: other, intentUuid: uuidv7(), rail: "erc20" },
      { merchantUuid: walletless, intentUuid: uuidv7(), rail: "bep20" },
      { merchantUuid: shop, intentUuid: uuidv7(), rail: "erc20" },
      { merchantUuid: shop, intentUuid: earlier, rail: "bep20" },
      { merchantUuid: shop, intentUuid: "not-a-uuid", rail: "bep20" },
      { merchantUuid: other, intentUuid: uuidv7(), rail: "bep20" },
    ];
    const { results } = await client.batchAllocateAddresses({ requests });
    const answers = results.map((r) => (r.outcome.case === "allocated" ? { index: r.outcome.value.index, address: r.outcome.value.address } : { reason: r.outcome.value?.detail?.reason, code: r.outcome.value?.code }));
    // The repeated intent keeps its address; the new ones take the next indexes, gap-free.
    const shopNew = [answers[0], answers[3]].map((a) => (a as { index: number }).index).sort();
    expect(shopNew).toEqual([1, 2]);
    expect(answers[0]).toEqual({ index: answers[0]!.index, address: deriveAddress(shopXpub, (answers[0] as { index: number }).index).address });
    expect(answers[4]).toEqual({ index: 0, address: before.address });
    expect([answers[1], answers[6]].map((a) => (a as { index: number }).index).sort()).toEqual([0, 1]);
    expect(answers[1]).toEqual({ index: answers[1]!.index, address: deriveAddress(otherXpub, (answers[1] as { index: number }).index).address });
    expect(answers[2]).toEqual({ reason: "WALLET_NOT_READY", code: Code.FailedPrecondition });
    expect(answers[5]).toEqual({ reason: "INVALID_ARGUMENT", code: Code.InvalidArgument });
    expect(await nextIndex(shop)).toBe(3);
    expect(await nextIndex(other)).toBe(2);
  });

  it("refuses no allocations and more than 1,000 with INVALID_ARGUMENT", async () => {
    await expectFailure(client.batchAllocateAddresses({ requests: [] }), Code.InvalidArgument, "INVALID_ARGUMENT");
    const request = { merchantUuid: uuidv7(), intentUuid: uuidv7(), rail: "bep20" };
    await expectFailure(client.batchAllocateAddresses({ requests: Array(1_001).fill(request) }), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it("allocates a turn's allocations of one merchant with one statement", async () => {
    const merchantUuid = uuidv7();
    const xpub = randomXpub();
    await client.setWallet({ merchantUuid, xpub });
    const names: string[] = [];
    const recording: Queryable = { query: (statement, values) => (names.push(statement.name ?? statement.text), db.query(statement, values)) };
    const together = allocationBatcher(recording);
    const repo = new WalletRepository(recording, together);
    const now = new Date();
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => repo.allocate({ merchantUuid, intentUuid: uuidv7(), rail: "bep20", now })));
    expect(names).toEqual(["allocation.allocate-many"]);
    expect(outcomes.map((o) => (o.kind === "allocated" ? o.allocation.index : -1))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const o of outcomes) if (o.kind === "allocated") expect(o.allocation.address).toBe(deriveAddress(xpub, o.allocation.index).address);
  });

  it("allocates each alone when a batch statement fails, and logs that once per cause with the cause", async () => {
    const merchantUuid = uuidv7();
    await client.setWallet({ merchantUuid, xpub: randomXpub() });
    const names: string[] = [];
    const recording: Queryable = { query: (statement, values) => (names.push(statement.name ?? statement.text), db.query(statement, values)) };
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger("allocation", { level: "info" }, new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    }));
    const repo = new WalletRepository(recording, allocationBatcher(recording, logger));
    // The rail column holds 16 characters: a longer one breaks the whole batch, then fails alone.
    for (const round of [0, 1]) {
      const outcomes = await Promise.allSettled(
        ["bep20", "r".repeat(17), "erc20"].map((rail) => repo.allocate({ merchantUuid, intentUuid: uuidv7(), rail: rail as "bep20", now: new Date() })),
      );
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      const indexes = outcomes.flatMap((o) => (o.status === "fulfilled" && o.value.kind === "allocated" ? [o.value.allocation.index] : []));
      expect(indexes.sort()).toEqual([2 * round, 2 * round + 1]);
    }
    expect(names.filter((n) => n === "allocation.allocate-many")).toHaveLength(2);
    expect(await nextIndex(merchantUuid)).toBe(4);
    expect(lines.map((l) => [l.level, l.msg, l.cause, l.rows])).toEqual([
      [40, "a batched allocation failed; its addresses are allocated one statement each", { code: "22001", message: "value too long for type character varying(16)" }, 3],
    ]);
  });

  it("runs one statement per merchant at a time: what is asked for meanwhile goes in the next, gap-free", async () => {
    const merchantA = uuidv7();
    const merchantB = uuidv7();
    await client.setWallet({ merchantUuid: merchantA, xpub: randomXpub() });
    await client.setWallet({ merchantUuid: merchantB, xpub: randomXpub() });
    const statements: { merchant: string; intents: number }[] = [];
    const running = new Map<string, number>();
    let overlapping = false;
    const slow: Queryable = {
      query: async (statement, values = []) => {
        const merchant = String(values[0]);
        statements.push({ merchant, intents: Array.isArray(values[1]) ? values[1].length : 1 });
        running.set(merchant, (running.get(merchant) ?? 0) + 1);
        if (running.get(merchant)! > 1) overlapping = true;
        try {
          await new Promise((r) => setTimeout(r, 5)); // a slow commit: the next allocations arrive meanwhile
          return await db.query(statement, values);
        } finally {
          running.set(merchant, running.get(merchant)! - 1);
        }
      },
    };
    const repo = new WalletRepository(slow, allocationBatcher(slow));
    const outcomes: Promise<Awaited<ReturnType<typeof repo.allocate>>>[] = [];
    for (let turn = 0; turn < 20; turn++) {
      for (const merchantUuid of [merchantA, merchantA, merchantB]) {
        outcomes.push(repo.allocate({ merchantUuid, intentUuid: uuidv7(), rail: "erc20", now: new Date() }));
      }
      await new Promise((r) => setImmediate(r));
    }
    const done = await Promise.all(outcomes);
    expect(overlapping).toBe(false);
    // Fewer statements than turns: allocations that waited went together.
    const forA = statements.filter((s) => s.merchant === merchantA);
    expect(forA.length).toBeLessThan(20);
    expect(forA.reduce((n, s) => n + s.intents, 0)).toBe(40);
    const indexes = (m: string) => done.flatMap((o) => (o.kind === "allocated" && o.allocation.merchantUuid === m ? [o.allocation.index] : [])).sort((x, y) => x - y);
    expect(indexes(merchantA)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(indexes(merchantB)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(await nextIndex(merchantA)).toBe(40);
  });
});

/**
 * Sets a rail's observer cursor as the chain observer keeps it (its row in
 * observer_cursors, advanced at `advancedAt`), or removes it (null): the
 * observation health readiness reads.
 */
async function observerAdvanced(rail: string, advancedAt: Date | null): Promise<void> {
  if (advancedAt === null) {
    await db.query(sql(`delete from observer_cursors where rail = $1`), [rail]);
    return;
  }
  await db.query(
    sql(`insert into observer_cursors (rail, chain_id, genesis_hash, next_block, advanced_at, updated_at) values ($1, $2, $3, 100, $4, $5)
     on conflict (rail) do update set advanced_at = excluded.advanced_at, updated_at = excluded.updated_at`),
    [rail, rail === "bep20" ? 31337 : 31338, `0x${"ab".repeat(32)}`, advancedAt, advancedAt],
  );
}

describe("AllocationService readiness", () => {
  const ALL_MERCHANT_SIDE = ["merchant_inactive", "operating_profile_missing", "payin_not_allowed"];
  const ready: MerchantReadinessInputs = {
    status: "active",
    payinPolicyEffect: "allow",
    operatingMode: "non_custodial",
    ruleEffect: "allow",
    providerConnected: true,
    providerConnectedInJurisdiction: true,
  };

  // Both rails observed (advanced just now), unless a test says otherwise.
  beforeEach(async () => {
    await observerAdvanced("bep20", new Date());
    await observerAdvanced("erc20", new Date());
  });

  it("says provider_not_ready for a rail whose observer has not advanced within OBSERVER_STALL_MS or has no cursor, and clears once it advances", async () => {
    const merchantUuid = uuidv7();
    merchantInputs.set(merchantUuid, ready);
    await client.setWallet({ merchantUuid, xpub: randomXpub() });
    const reasons = async () => (await client.getReadiness({ merchantUuid })).pairs.map((p) => [p.rail, p.ready, p.reasons]);
    expect(await reasons()).toEqual([
      ["bep20", true, []],
      ["erc20", true, []],
    ]);
    // bep20's observer last advanced two minutes ago (the default stall time is one); erc20 was never observed.
    await observerAdvanced("bep20", new Date(Date.now() - 120_000));
    await observerAdvanced("erc20", null);
    expect(await reasons()).toEqual([
      ["bep20", false, ["provider_not_ready"]],
      ["erc20", false, ["provider_not_ready"]],
    ]);
    const res = await client.getReadiness({ merchantUuid });
    expect(res.pairs.map((p) => p.reasonCodes)).toEqual([[allocationV1.ReadinessReason.PROVIDER_NOT_READY], [allocationV1.ReadinessReason.PROVIDER_NOT_READY]]);
    // bep20 catches up: only erc20 stays not ready.
    await observerAdvanced("bep20", new Date());
    expect(await reasons()).toEqual([
      ["bep20", true, []],
      ["erc20", false, ["provider_not_ready"]],
    ]);
    // A merchant not connected to a provider is provider_not_ready however observed: the reason is named once.
    merchantInputs.set(merchantUuid, { ...ready, providerConnected: false });
    expect(await reasons()).toEqual([
      ["bep20", false, ["provider_not_ready"]],
      ["erc20", false, ["provider_not_ready"]],
    ]);
  });

  it("lists every failing reason of each configured pair, in the contract's order", async () => {
    const merchantUuid = uuidv7();
    merchantInputs.set(merchantUuid, { status: "inactive", payinPolicyEffect: null, operatingMode: null, ruleEffect: null, providerConnected: false, providerConnectedInJurisdiction: false });
    const res = await client.getReadiness({ merchantUuid });
    expect(res.pairs.map((p) => ({ asset: p.asset, rail: p.rail, ready: p.ready, reasons: p.reasons }))).toEqual([
      { asset: "usdt", rail: "bep20", ready: false, reasons: [...ALL_MERCHANT_SIDE, "wallet_not_ready", "provider_not_ready"] },
      { asset: "usdc", rail: "erc20", ready: false, reasons: [...ALL_MERCHANT_SIDE, "wallet_not_ready", "provider_not_ready"] },
    ]);
  });

  it("is ready once every part is, and names exactly what still fails", async () => {
    const merchantUuid = uuidv7();
    merchantInputs.set(merchantUuid, { ...ready, payinPolicyEffect: "deny" });
    expect((await client.getReadiness({ merchantUuid })).pairs.map((p) => p.reasons)).toEqual([
      ["payin_not_allowed", "wallet_not_ready"],
      ["payin_not_allowed", "wallet_not_ready"],
    ]);
    await client.setWallet({ merchantUuid, xpub: randomXpub() });
    merchantInputs.set(merchantUuid, { ...ready, status: "suspended" });
    expect((await client.getReadiness({ merchantUuid })).pairs.map((p) => p.reasons)).toEqual([["merchant_inactive"], ["merchant_inactive"]]);
    merchantInputs.set(merchantUuid, ready);
    const res = await client.getReadiness({ merchantUuid });
    expect(res.pairs.map((p) => [p.ready, p.reasons])).toEqual([
      [true, []],
      [true, []],
    ]);
  });

  it("answers the pairs asked for, in their order; a pair the platform does not serve is asset_not_configured", async () => {
    const merchantUuid = uuidv7();
    merchantInputs.set(merchantUuid, ready);
    await client.setWallet({ merchantUuid, xpub: randomXpub() });
    const res = await client.getReadiness({
      merchantUuid,
      pairs: [
        { asset: "usdc", rail: "erc20" },
        { asset: "usdt", rail: "erc20" },
      ],
    });
    expect(res.pairs.map((p) => [p.asset, p.rail, p.ready, p.reasons])).toEqual([
      ["usdc", "erc20", true, []],
      ["usdt", "erc20", false, ["asset_not_configured"]],
    ]);
  });

  it("asks the merchants service about the jurisdiction given, and counts its rule and its provider binding; none asked is merchant-wide", async () => {
    const merchantUuid = uuidv7();
    await client.setWallet({ merchantUuid, xpub: randomXpub() });
    // As merchants answers for a merchant bound and connected for FR only, where no rule allows: asked about DE.
    merchantInputs.set(merchantUuid, { ...ready, ruleEffect: null, providerConnectedInJurisdiction: false });
    const reasons = async (jurisdiction?: string) => (await client.getReadiness({ merchantUuid, jurisdiction })).pairs.map((p) => p.reasons);
    expect(await reasons("DE")).toEqual([
      ["payin_not_allowed", "provider_not_ready"],
      ["payin_not_allowed", "provider_not_ready"],
    ]);
    // Merchant-wide, neither counts: no rule, and a provider bound somewhere is enough.
    expect(await reasons()).toEqual([[], []]);
    expect(await reasons("")).toEqual([[], []]);
    merchantInputs.set(merchantUuid, { ...ready, ruleEffect: "deny" });
    expect(await reasons("DE")).toEqual([["payin_not_allowed"], ["payin_not_allowed"]]);
    merchantInputs.set(merchantUuid, ready);
    expect(await reasons("DE")).toEqual([[], []]);
    expect(askedFor.get(merchantUuid)).toEqual(["DE", null, null, "DE", "DE"]);
  });

  it("refuses an unknown merchant (404), a malformed uuid, an incomplete pair and a jurisdiction that is no country code (400)", async () => {
    await expectFailure(client.getReadiness({ merchantUuid: uuidv7() }), Code.NotFound, "MERCHANT_NOT_FOUND");
    await expectFailure(client.getReadiness({ merchantUuid: "nope" }), Code.InvalidArgument, "INVALID_ARGUMENT");
    const merchantUuid = uuidv7();
    merchantInputs.set(merchantUuid, ready);
    await expectFailure(client.getReadiness({ merchantUuid, pairs: [{ asset: "usdt", rail: "" }] }), Code.InvalidArgument, "INVALID_ARGUMENT");
    for (const jurisdiction of ["de", "XX", "DEU", "D", " DE"]) {
      await expectFailure(client.getReadiness({ merchantUuid, jurisdiction }), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
    expect(askedFor.get(merchantUuid)).toBeUndefined();
  });
});
