/**
 * Pay-in creation under concurrency, end to end on a real platform: one
 * idempotency key raced by 50 requests, and 1,000 creates over 10 merchants
 * whose addresses must be distinct and whose derivation indexes have no gaps.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { merchantsV1 } from "@payin/proto";
import {
  ALLOCATION_REFERENCE,
  type ApiResponse,
  CREATE_KEYS,
  createBody,
  deriveAddress,
  expectError,
  expectKeys,
  expectSecretsAbsentFromLogs,
  newKey,
  pool,
  type TestMerchant,
  usePlatform,
} from "./support.js";

const e2e = usePlatform();

describe("one idempotency key raced by 50 requests", () => {
  it("answers 201 with one intent or 409 IDEMPOTENCY_KEY_IN_USE, and creates exactly one intent", async () => {
    const shop = await e2e.operator.merchant({ name: "Race Shop" });
    const key = newKey();
    const body = createBody({ reference: "race" });
    const responses = await Promise.all(Array.from({ length: 50 }, () => e2e.api.create(shop.uuid, shop.token, body, key)));

    const created = responses.filter((r) => r.status === 201);
    const busy = responses.filter((r) => r.status === 409);
    expect(created.length + busy.length, responses.map((r) => `${r.status} ${r.text}`).join("\n")).toBe(50);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const uuids = new Set(created.map((r) => r.body.intent_uuid));
    expect(uuids.size).toBe(1);
    for (const r of created) {
      expectKeys(r.body, CREATE_KEYS);
      expect(r.body).toEqual(created[0]!.body);
    }
    for (const r of busy) {
      const error = expectError(r, 409, "IDEMPOTENCY_KEY_IN_USE");
      expect(error.message).toMatch(/retry/i);
    }
    expect(await e2e.api.total(shop)).toBe(1);

    // Once the race is over, the key replays the one intent.
    const replay = await e2e.api.create(shop.uuid, shop.token, body, key);
    expect(replay.status).toBe(201);
    expect(replay.body.intent_uuid).toBe([...uuids][0]);
    expect(replay.body.allocation_reference).toBe("m/44'/60'/0'/0/0");
    expect(await e2e.api.total(shop)).toBe(1);

    // The requests that lost the race took no address: the next intent takes the next index.
    const next = await e2e.api.create(shop.uuid, shop.token, createBody({ reference: "after the race" }));
    expect(next.status, next.text).toBe(201);
    expect(next.body.allocation_reference).toBe("m/44'/60'/0'/0/1");
    expect(next.body.address).toBe(deriveAddress(shop.xpub!, 1));
  });
});

describe("creates that store no intent", () => {
  const indexOf = (res: ApiResponse) => Number(ALLOCATION_REFERENCE.exec(res.body.allocation_reference)![1]);

  it("take no address: after replays, reused keys, refusals and a suspension, the next intents take the next indexes", async () => {
    await e2e.operator.merchants.createRule({ capability: "crypto.payin", jurisdiction: "NO", effect: "deny" });
    const shop = await e2e.operator.merchant({ name: "Gapless Shop" });
    const key = newKey();
    const body = createBody({ reference: "first" });
    const first = await e2e.api.create(shop.uuid, shop.token, body, key);
    expect(first.status, first.text).toBe(201);
    expect(indexOf(first)).toBe(0);

    // Replays and a reused key, one by one and 20 at once.
    expect((await e2e.api.create(shop.uuid, shop.token, body, key)).body.intent_uuid).toBe(first.body.intent_uuid);
    expectError(await e2e.api.create(shop.uuid, shop.token, createBody({ reference: "other" }), key), 400, "IDEMPOTENCY_KEY_REUSED");
    const replays = await Promise.all(Array.from({ length: 20 }, () => e2e.api.create(shop.uuid, shop.token, body, key)));
    expect(replays.map((r) => r.status)).toEqual(Array(20).fill(201));
    // Refused by a rule, 20 at once.
    const denied = await Promise.all(Array.from({ length: 20 }, () => e2e.api.create(shop.uuid, shop.token, createBody({ jurisdiction: "NO" }))));
    for (const res of denied) expectError(res, 403, "PAYIN_NOT_ALLOWED");
    // Refused while suspended, 20 at once; a replay still answers.
    await e2e.operator.transition(shop.uuid, merchantsV1.MerchantTransition.SUSPEND);
    const refused = await Promise.all(Array.from({ length: 20 }, () => e2e.api.create(shop.uuid, shop.token, createBody())));
    for (const res of refused) expectError(res, 409, "MERCHANT_NOT_ACTIVE");
    expect((await e2e.api.create(shop.uuid, shop.token, body, key)).status).toBe(201);
    await e2e.operator.transition(shop.uuid, merchantsV1.MerchantTransition.ACTIVATE);
    // None of that moved the wallet's counter.
    expect((await e2e.operator.allocation.getWallet({ merchantUuid: shop.uuid })).wallet?.nextIndex).toBe(1);

    const second = await e2e.api.create(shop.uuid, shop.token, createBody({ reference: "second" }));
    expect(second.status, second.text).toBe(201);
    expect(indexOf(second)).toBe(1);
    expect(second.body.address).toBe(deriveAddress(shop.xpub!, 1));

    // Refusals racing successes: whatever the order, the stored intents hold
    // the addresses their indexes derive, and the indexes in use are 0..n-1.
    const mixed = await Promise.all(
      Array.from({ length: 60 }, (_, i) => e2e.api.create(shop.uuid, shop.token, createBody(i % 2 === 0 ? { reference: `ok-${i}` } : { jurisdiction: "NO" }))),
    );
    const stored = mixed.filter((r) => r.status === 201);
    expect(stored).toHaveLength(30);
    for (const res of mixed.filter((r) => r.status !== 201)) expectError(res, 403, "PAYIN_NOT_ALLOWED");
    const more = await Promise.all(Array.from({ length: 30 }, (_, i) => e2e.api.create(shop.uuid, shop.token, createBody({ reference: `more-${i}` }))));
    expect(more.map((r) => r.status)).toEqual(Array(30).fill(201));
    const all = [first, second, ...stored, ...more];
    for (const res of all) expect(res.body.address).toBe(deriveAddress(shop.xpub!, indexOf(res)));
    expect(all.map(indexOf).sort((x, y) => x - y)).toEqual(Array.from({ length: all.length }, (_, i) => i));
    expect(await e2e.api.total(shop)).toBe(all.length);
    expect((await e2e.operator.allocation.getWallet({ merchantUuid: shop.uuid })).wallet?.nextIndex).toBe(all.length);
  });
});

describe("1,000 creates over 10 merchants", () => {
  const MERCHANTS = 10;
  const PER_MERCHANT = 100;
  let shops: TestMerchant[];
  let results: { shop: TestMerchant; res: ApiResponse }[];

  beforeAll(async () => {
    shops = await Promise.all(Array.from({ length: MERCHANTS }, (_, i) => e2e.operator.merchant({ name: `Load Shop ${i}` })));
    // Interleave merchants so each one's creates overlap the others'.
    const jobs = Array.from({ length: MERCHANTS * PER_MERCHANT }, (_, i) => {
      const shop = shops[i % MERCHANTS]!;
      const asset = i % 3 === 0 ? "usdc" : "usdt";
      return async () => ({ shop, res: await e2e.api.create(shop.uuid, shop.token, createBody({ asset, amount: `${(i % 97) + 1}.5`, reference: `load-${i}` })) });
    });
    results = await pool(jobs, 20);
  }, 300_000);

  it("answers 201 to every create", () => {
    const failures = results.filter((r) => r.res.status !== 201).map((r) => `${r.res.status} ${r.res.text}`);
    expect(failures, `platform errors: ${e2e.log.errors().join("; ")}`).toEqual([]);
    expect(results).toHaveLength(1_000);
  });

  it("hands out 1,000 distinct addresses and intent uuids", () => {
    expect(new Set(results.map((r) => r.res.body.address)).size).toBe(1_000);
    expect(new Set(results.map((r) => r.res.body.intent_uuid)).size).toBe(1_000);
  });

  it("gives each merchant the indexes 0..n-1 exactly once, each the address its xpub derives", () => {
    for (const shop of shops) {
      const mine = results.filter((r) => r.shop === shop).map((r) => r.res.body);
      expect(mine).toHaveLength(PER_MERCHANT);
      const indexes = mine.map((body) => {
        const match = ALLOCATION_REFERENCE.exec(body.allocation_reference);
        expect(match, body.allocation_reference).not.toBeNull();
        return Number(match![1]);
      });
      expect([...indexes].sort((x, y) => x - y)).toEqual(Array.from({ length: PER_MERCHANT }, (_, i) => i));
      for (const [i, body] of mine.entries()) expect(body.address).toBe(deriveAddress(shop.xpub!, indexes[i]!));
    }
  });

  it("lists each merchant's intents with the right totals", async () => {
    for (const shop of shops) {
      expect(await e2e.api.total(shop)).toBe(PER_MERCHANT);
      const usdc = results.filter((r) => r.shop === shop && r.res.body.asset === "usdc").length;
      expect(await e2e.api.total(shop, "asset=usdc")).toBe(usdc);
      expect(await e2e.api.total(shop, "asset=usdt")).toBe(PER_MERCHANT - usdc);
    }
  });

  it("reads every intent back with its own address", async () => {
    const reads = await pool(
      results.map(({ shop, res }) => async () => ({ created: res.body, read: await e2e.api.read(shop.uuid, shop.token, res.body.intent_uuid) })),
      20,
    );
    for (const { created, read } of reads) {
      expect(read.status).toBe(200);
      expect(read.body.address).toBe(created.address);
      expect(read.body.expected_amount).toBe(created.expected_amount);
    }
  }, 120_000);

  it("answers 2,000 concurrent reads (own, another merchant's, missing), which the gateway coalesces, each with its own answer", async () => {
    // The gateway sends reads that arrive together to payins in one call; none
    // may see another's answer.
    type Job = { shop: TestMerchant; intentUuid: string; expected: Record<string, unknown> | null };
    const jobs: Job[] = [];
    results.forEach(({ shop, res }, i) => {
      jobs.push({ shop, intentUuid: res.body.intent_uuid, expected: res.body });
      // The next merchant asking for this one's intent, or someone asking for none.
      const neighbour = shops[(shops.indexOf(shop) + 1) % MERCHANTS]!;
      jobs.push(i % 2 === 0 ? { shop: neighbour, intentUuid: res.body.intent_uuid, expected: null } : { shop, intentUuid: crypto.randomUUID(), expected: null });
    });
    const reads = await pool(
      jobs.map((job) => async () => ({ job, res: await e2e.api.read(job.shop.uuid, job.shop.token, job.intentUuid) })),
      200,
    );
    for (const { job, res } of reads) {
      if (job.expected === null) {
        expectError(res, 404, "PAY_IN_INTENT_NOT_FOUND");
        continue;
      }
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        intent_uuid: job.intentUuid,
        merchant_uuid: job.shop.uuid,
        address: job.expected.address,
        expected_amount: job.expected.expected_amount,
        asset: job.expected.asset,
        expires_at: job.expected.expires_at,
      });
    }
  }, 120_000);
});

describe("secrets", () => {
  it("never writes a machine token to the platform's logs", async () => {
    await expectSecretsAbsentFromLogs(e2e.log, [...e2e.operator.tokens, e2e.platform.serviceToken]);
  });
});
