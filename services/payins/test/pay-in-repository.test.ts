import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, openOrm, sqlClient, type MikroORM } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { createTestDatabase } from "@payin/testing";
import type { PayInIntent } from "../src/domain/pay-in-intent.js";
import { ormOptions } from "../src/store/orm.js";
import { PayInRepository } from "../src/store/pay-in-repository.js";

// The repository against real PostgreSQL: every operation is a named prepared
// statement on the ORM's pool, values travel as parameters.
describe("PayInRepository (prepared statements on PostgreSQL)", () => {
  let orm: MikroORM;
  let repo: PayInRepository;

  beforeAll(async () => {
    const url = await createTestDatabase("payins_repo");
    await migrate(ormOptions(url));
    orm = await openOrm(ormOptions(url, 4));
    repo = new PayInRepository(sqlClient(orm));
  });
  afterAll(async () => {
    await orm?.close();
  });

  const intent = (merchantUuid: string, overrides: Partial<PayInIntent> = {}): PayInIntent => {
    const now = new Date(Date.now() - 1000);
    return {
      intentUuid: uuidv7(),
      merchantUuid,
      status: "created",
      asset: "usdt",
      rail: "bep20",
      expectedAmount: "10.50",
      address: null,
      allocationReference: null,
      reference: null,
      jurisdiction: "DE",
      createdAt: now,
      expiresAt: new Date(now.getTime() + 3600_000),
      updatedAt: now,
      ...overrides,
    };
  };

  /** A request hash as the domain makes them (SHA-256, hex). */
  const hash = (text: string) => createHash("sha256").update(text).digest("hex");

  /** Claims a key and completes it with `i`, as a create does. */
  const store = async (i: PayInIntent, key = `k-${i.intentUuid}`) => {
    const claim = await repo.claimKey({ merchantUuid: i.merchantUuid, key, requestHash: hash("h"), newIntentUuid: i.intentUuid, now: new Date() });
    expect(claim).toEqual({ kind: "claimed", intentUuid: i.intentUuid });
    await repo.completeKey(i, key);
  };

  it("stores an intent and reads it back exactly, timestamps to the millisecond", async () => {
    const merchant = uuidv7();
    const i = intent(merchant, { reference: "order 'quoted' -- $1; drop table x", address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" });
    await store(i);
    expect(await repo.get(merchant, i.intentUuid)).toEqual(i);
    // Another merchant's intent is not found.
    expect(await repo.get(uuidv7(), i.intentUuid)).toBeNull();
  });

  it("answers a completed key with its intent, and a pending one as in flight", async () => {
    const merchant = uuidv7();
    const done = intent(merchant);
    await store(done, "done-key");
    const replay = await repo.claimKey({ merchantUuid: merchant, key: "done-key", requestHash: hash("h"), newIntentUuid: uuidv7(), now: new Date() });
    expect(replay).toEqual({ kind: "completed", requestHash: hash("h"), intent: done });

    const first = await repo.claimKey({ merchantUuid: merchant, key: "busy", requestHash: hash("h2"), newIntentUuid: uuidv7(), now: new Date() });
    expect(first.kind).toBe("claimed");
    const second = await repo.claimKey({ merchantUuid: merchant, key: "busy", requestHash: hash("h2"), newIntentUuid: uuidv7(), now: new Date() });
    expect(second).toEqual({ kind: "in-flight", requestHash: hash("h2") });
    // Released, the key can be claimed again.
    await repo.releaseKey(merchant, "busy", (first as { intentUuid: string }).intentUuid);
    const third = await repo.claimKey({ merchantUuid: merchant, key: "busy", requestHash: hash("h3"), newIntentUuid: uuidv7(), now: new Date() });
    expect(third.kind).toBe("claimed");
  });

  it("lists with every combination of filters, newest first, with totals from the counters", async () => {
    const merchant = uuidv7();
    const base = Date.now() - 60_000;
    const made: PayInIntent[] = [];
    for (let n = 0; n < 8; n++) {
      const at = new Date(base + n * 1000);
      const i = intent(merchant, {
        asset: n % 2 ? "usdc" : "usdt",
        rail: n % 2 ? "erc20" : "bep20",
        status: n % 4 < 2 ? "created" : "awaiting_payment",
        createdAt: at,
        updatedAt: at,
      });
      await store(i);
      made.push(i);
    }
    const newestFirst = [...made].reverse();
    const cases: { status?: "created" | "awaiting_payment"; asset?: "usdt" | "usdc" }[] = [
      {},
      { asset: "usdc" },
      { status: "awaiting_payment" },
      { status: "created", asset: "usdt" },
    ];
    for (const filter of cases) {
      const expected = newestFirst.filter((i) => (!filter.status || i.status === filter.status) && (!filter.asset || i.asset === filter.asset));
      const page = await repo.list({ merchantUuid: merchant, limit: 2, offset: 1, ...filter });
      expect(page.total).toBe(expected.length);
      expect(page.intents).toEqual(expected.slice(1, 3));
    }
    // Past the end: no rows, the total still right.
    expect(await repo.list({ merchantUuid: merchant, limit: 5, offset: 50 })).toEqual({ intents: [], total: 8 });
  });
});
