/**
 * Pay-in creation under concurrency, end to end on a real platform: one
 * idempotency key raced by 50 requests, and 1,000 creates over 10 merchants
 * whose addresses must be distinct and whose derivation indexes have no gaps.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type TestPlatform } from "@payin/testing";
import {
  ALLOCATION_REFERENCE,
  Api,
  CREATE_KEYS,
  createBody,
  deriveAddress,
  expectError,
  expectKeys,
  expectSecretsAbsentFromLogs,
  newKey,
  Operator,
  PlatformLog,
  pool,
  type ApiResponse,
  type TestMerchant,
} from "./support.js";

let platform: TestPlatform;
let log: PlatformLog;
let operator: Operator;
let api: Api;

beforeAll(async () => {
  platform = await startTestPlatform();
  log = await PlatformLog.attach(platform);
  operator = new Operator(platform);
  api = new Api(platform.apiUrl);
}, 180_000);

afterAll(async () => {
  await platform?.stopAll();
  await log?.close();
}, 60_000);

describe("one idempotency key raced by 50 requests", () => {
  it("answers 201 with one intent or 409 IDEMPOTENCY_KEY_IN_USE, and creates exactly one intent", async () => {
    const shop = await operator.merchant({ name: "Race Shop" });
    const key = newKey();
    const body = createBody({ reference: "race" });
    const responses = await Promise.all(Array.from({ length: 50 }, () => api.create(shop.uuid, shop.token, body, key)));

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
    expect(await api.total(shop)).toBe(1);

    // Once the race is over, the key replays the one intent.
    const replay = await api.create(shop.uuid, shop.token, body, key);
    expect(replay.status).toBe(201);
    expect(replay.body.intent_uuid).toBe([...uuids][0]);
    expect(replay.body.allocation_reference).toBe("m/44'/60'/0'/0/0");
    expect(await api.total(shop)).toBe(1);
  });
});

describe("1,000 creates over 10 merchants", () => {
  const MERCHANTS = 10;
  const PER_MERCHANT = 100;
  let shops: TestMerchant[];
  let results: { shop: TestMerchant; res: ApiResponse }[];

  beforeAll(async () => {
    shops = await Promise.all(Array.from({ length: MERCHANTS }, (_, i) => operator.merchant({ name: `Load Shop ${i}` })));
    // Interleave merchants so each one's creates overlap the others'.
    const jobs = Array.from({ length: MERCHANTS * PER_MERCHANT }, (_, i) => {
      const shop = shops[i % MERCHANTS]!;
      const asset = i % 3 === 0 ? "usdc" : "usdt";
      return async () => ({ shop, res: await api.create(shop.uuid, shop.token, createBody({ asset, amount: `${(i % 97) + 1}.5`, reference: `load-${i}` })) });
    });
    results = await pool(jobs, 20);
  }, 300_000);

  it("answers 201 to every create", () => {
    const failures = results.filter((r) => r.res.status !== 201).map((r) => `${r.res.status} ${r.res.text}`);
    expect(failures, `platform errors: ${log.errors().join("; ")}`).toEqual([]);
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
      expect(await api.total(shop)).toBe(PER_MERCHANT);
      const usdc = results.filter((r) => r.shop === shop && r.res.body.asset === "usdc").length;
      expect(await api.total(shop, "asset=usdc")).toBe(usdc);
      expect(await api.total(shop, "asset=usdt")).toBe(PER_MERCHANT - usdc);
    }
  });

  it("reads every intent back with its own address", async () => {
    const reads = await pool(
      results.map(({ shop, res }) => async () => ({ created: res.body, read: await api.read(shop.uuid, shop.token, res.body.intent_uuid) })),
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
      jobs.map((job) => async () => ({ job, res: await api.read(job.shop.uuid, job.shop.token, job.intentUuid) })),
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
    await expectSecretsAbsentFromLogs(log, [...operator.tokens, platform.serviceToken]);
  });
});
