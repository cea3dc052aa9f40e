import { createHash, randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { database, migrate, openOrm, type MikroORM, type Queryable } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { createLogger } from "@payin/logging";
import { createTestDatabase } from "@payin/testing";
import type { PayInIntent } from "../src/domain/pay-in-intent.js";
import { ormOptions } from "../src/store/orm.js";
import { PayInRepository, RELEASED_REUSE_MS } from "../src/store/pay-in-repository.js";

// The repository against real PostgreSQL: every operation is a named prepared
// statement on the ORM's pool, values travel as parameters.
describe("PayInRepository (prepared statements on PostgreSQL)", () => {
  let orm: MikroORM;
  let repo: PayInRepository;

  beforeAll(async () => {
    const url = await createTestDatabase("payins_repo");
    await migrate(ormOptions(url));
    orm = await openOrm(ormOptions(url, 4));
    repo = new PayInRepository(database(orm));
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
    expect(claim).toEqual({ kind: "claimed", intentUuid: i.intentUuid, claimedAt: expect.any(Date) });
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
    if (first.kind !== "claimed") throw new Error("not claimed");
    // Only the claim as it was taken is released: not one taken over since.
    expect(await repo.releaseKey(merchant, "busy", { ...first, claimedAt: new Date(first.claimedAt.getTime() - 1) })).toBe(false);
    // Released, the key can be claimed again: with the same payload under the
    // same intent uuid (so the same address), with another under a new one.
    expect(await repo.releaseKey(merchant, "busy", first)).toBe(true);
    expect(await repo.releaseKey(merchant, "busy", first)).toBe(false);
    const retry = await repo.claimKey({ merchantUuid: merchant, key: "busy", requestHash: hash("h2"), newIntentUuid: uuidv7(), now: new Date() });
    expect(retry).toEqual({ kind: "claimed", intentUuid: first.intentUuid, claimedAt: expect.any(Date) });
    expect(await repo.claimKey({ merchantUuid: merchant, key: "busy", requestHash: hash("h2"), newIntentUuid: uuidv7(), now: new Date() }))
      .toEqual({ kind: "in-flight", requestHash: hash("h2") });
    if (retry.kind !== "claimed") throw new Error("not claimed");
    expect(await repo.releaseKey(merchant, "busy", retry)).toBe(true);
    const otherUuid = uuidv7();
    const other = await repo.claimKey({ merchantUuid: merchant, key: "busy", requestHash: hash("h3"), newIntentUuid: otherUuid, now: new Date() });
    expect(other).toEqual({ kind: "claimed", intentUuid: otherUuid, claimedAt: expect.any(Date) });
    // Completed under the new payload, the key replays it and refuses the old one's hash as another payload.
    if (other.kind !== "claimed") throw new Error("not claimed");
    const stored = intent(merchant, { intentUuid: otherUuid });
    await repo.completeKey(stored, "busy");
    expect(await repo.claimKey({ merchantUuid: merchant, key: "busy", requestHash: hash("h3"), newIntentUuid: uuidv7(), now: new Date() }))
      .toEqual({ kind: "completed", requestHash: hash("h3"), intent: stored });
  });

  it("keeps a released key's intent uuid for a retry only while the release is recent", async () => {
    const merchant = uuidv7();
    const longAgo = new Date(Date.now() - RELEASED_REUSE_MS - 60_000);
    const old = await repo.claimKey({ merchantUuid: merchant, key: "late", requestHash: hash("p"), newIntentUuid: uuidv7(), now: longAgo });
    if (old.kind !== "claimed") throw new Error("not claimed");
    expect(await repo.releaseKey(merchant, "late", old)).toBe(true);
    const fresh = uuidv7();
    // The old uuid's address may come from a wallet key replaced since: a new uuid, a new address.
    expect(await repo.claimKey({ merchantUuid: merchant, key: "late", requestHash: hash("p"), newIntentUuid: fresh, now: new Date() }))
      .toEqual({ kind: "claimed", intentUuid: fresh, claimedAt: expect.any(Date) });
  });

  it("claims a key released between its failed claim and its read (one more attempt)", async () => {
    const merchant = uuidv7();
    const holder = await repo.claimKey({ merchantUuid: merchant, key: "racy", requestHash: hash("a"), newIntentUuid: uuidv7(), now: new Date() });
    if (holder.kind !== "claimed") throw new Error("not claimed");
    // The holder gives the key up just after this request's claim found it held.
    const real = database(orm);
    let released = false;
    const sql: Queryable = {
      query: async (statement, values) => {
        if (statement.name === "payins.read-key" && !released) {
          released = await repo.releaseKey(merchant, "racy", holder);
        }
        return real.query(statement, values);
      },
    };
    const mine = uuidv7();
    // Another payload: the key is free again, so neither "in flight" nor "reused with a different payload".
    expect(await new PayInRepository(sql).claimKey({ merchantUuid: merchant, key: "racy", requestHash: hash("b"), newIntentUuid: mine, now: new Date() }))
      .toEqual({ kind: "claimed", intentUuid: mine, claimedAt: expect.any(Date) });
    expect(released).toBe(true);
  });

  it("lets one of many concurrent retries of a released key take it over, the rest in flight", async () => {
    const merchant = uuidv7();
    const first = await repo.claimKey({ merchantUuid: merchant, key: "retried", requestHash: hash("p"), newIntentUuid: uuidv7(), now: new Date() });
    if (first.kind !== "claimed") throw new Error("not claimed");
    expect(await repo.releaseKey(merchant, "retried", first)).toBe(true);
    const claims = await Promise.all(
      Array.from({ length: 20 }, () => repo.claimKey({ merchantUuid: merchant, key: "retried", requestHash: hash("p"), newIntentUuid: uuidv7(), now: new Date() })),
    );
    const won = claims.filter((c) => c.kind === "claimed");
    expect(won).toEqual([{ kind: "claimed", intentUuid: first.intentUuid, claimedAt: expect.any(Date) }]);
    expect(claims.filter((c) => c.kind === "in-flight")).toHaveLength(19);
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

  describe("claims and completions made in one turn", () => {
    /** A repository whose statements are recorded by name, and whose log lines are kept. */
    const recorded = () => {
      const names: string[] = [];
      const lines: Record<string, unknown>[] = [];
      const real = database(orm);
      const sql: Queryable = { query: (statement, values) => (names.push(statement.name ?? statement.text), real.query(statement, values)) };
      const logger = createLogger("payins", { level: "info" }, new Writable({
        write(chunk, _encoding, done) {
          lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
          done();
        },
      }));
      return { names, lines, repo: new PayInRepository(sql, logger) };
    };
    const claimInput = (i: PayInIntent, key: string, payload = "h") => ({
      merchantUuid: i.merchantUuid, key, requestHash: hash(payload), newIntentUuid: i.intentUuid, now: new Date(),
    });

    it("claims and stores a batch with one statement each, every intent counted and replayable", async () => {
      const { names, repo: batching } = recorded();
      const merchant = uuidv7();
      // Each with its own address, derivation path and reference, which the batch statement must store in place.
      const intents = Array.from({ length: 5 }, (_, n) =>
        intent(merchant, {
          asset: n % 2 ? "usdc" : "usdt",
          rail: n % 2 ? "erc20" : "bep20",
          address: `0x${randomBytes(20).toString("hex")}`,
          allocationReference: `m/44'/60'/${n}'/0/${10 + n}`,
          reference: `order-${n}`,
        }),
      );
      const claims = await Promise.all(intents.map((i, n) => batching.claimKey(claimInput(i, `batch-${n}`))));
      expect(claims).toEqual(intents.map((i) => ({ kind: "claimed", intentUuid: i.intentUuid, claimedAt: expect.any(Date) })));
      await Promise.all(intents.map((i, n) => batching.completeKey(i, `batch-${n}`)));
      expect(names).toEqual(["payins.claim-keys", "payins.complete-keys"]);

      for (const [n, i] of intents.entries()) {
        const stored = await repo.get(merchant, i.intentUuid);
        expect(stored).toEqual(i);
        expect([stored?.address, stored?.allocationReference, stored?.reference]).toEqual([i.address, `m/44'/60'/${n}'/0/${10 + n}`, `order-${n}`]);
        const replay = await repo.claimKey(claimInput(intent(merchant), `batch-${n}`));
        expect(replay).toEqual({ kind: "completed", requestHash: hash("h"), intent: i });
      }
      const all = await repo.list({ merchantUuid: merchant, limit: 100, offset: 0 });
      expect(all.total).toBe(5);
      expect((await repo.list({ merchantUuid: merchant, limit: 100, offset: 0, asset: "usdc" })).total).toBe(2);
    });

    it("settles alone what the batch cannot: a key already taken, a key twice in one turn", async () => {
      const { names, repo: batching } = recorded();
      const merchant = uuidv7();
      const done = intent(merchant);
      await store(done, "taken");
      const [a, b, c] = [intent(merchant), intent(merchant), intent(merchant)];
      // A turn with a taken key: the fresh ones are claimed by the batch, the taken one answered alone.
      const claims = await Promise.all([batching.claimKey(claimInput(a, "fresh-a")), batching.claimKey(claimInput(b, "taken")), batching.claimKey(claimInput(c, "fresh-c"))]);
      expect(claims).toEqual([
        { kind: "claimed", intentUuid: a.intentUuid, claimedAt: expect.any(Date) },
        { kind: "completed", requestHash: hash("h"), intent: done },
        { kind: "claimed", intentUuid: c.intentUuid, claimedAt: expect.any(Date) },
      ]);
      expect(names).toEqual(["payins.claim-keys", "payins.claim-key", "payins.read-key"]);

      // The same key twice in one turn: each alone, as two racing requests, so
      // either may win. Their payloads differ, so the loser shows whose claim it met.
      names.length = 0;
      const [d, e] = [intent(merchant), intent(merchant)];
      const twice = await Promise.all([batching.claimKey(claimInput(d, "twice", "h-d")), batching.claimKey(claimInput(e, "twice", "h-e"))]);
      const winner = twice.findIndex((claim) => claim.kind === "claimed");
      expect(winner, JSON.stringify(twice)).toBeGreaterThanOrEqual(0);
      const [held, heldPayload] = winner === 0 ? [d, "h-d"] : [e, "h-e"];
      expect(twice[winner]).toEqual({ kind: "claimed", intentUuid: held.intentUuid, claimedAt: expect.any(Date) });
      expect(twice[1 - winner]).toEqual({ kind: "in-flight", requestHash: hash(heldPayload) });
      expect(names.filter((n) => n === "payins.claim-keys")).toEqual([]);
    });

    it("stores each alone when the batch statement fails, so only the bad one fails, and logs the fallback once with its cause", async () => {
      const { repo: batching, lines } = recorded();
      const merchant = uuidv7();
      const address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
      const [good, clash] = [intent(merchant), intent(merchant, { address })];
      const holder = intent(uuidv7(), { address });
      await store(holder);
      await Promise.all([batching.claimKey(claimInput(good, "good")), batching.claimKey(claimInput(clash, "clash"))]);
      const outcomes = await Promise.allSettled([batching.completeKey(good, "good"), batching.completeKey(clash, "clash")]);
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected"]);
      expect(await repo.get(merchant, good.intentUuid)).toEqual(good);
      expect(await repo.get(merchant, clash.intentUuid)).toBeNull();
      expect(lines.map((l) => [l.level, l.msg, l.cause, l.rows])).toEqual([
        [40, "a batched pay-in completion failed; its intents are stored one statement each", { code: "23505", message: 'duplicate key value violates unique constraint "pay_in_intents_address_key"' }, 2],
      ]);
      // Neither the statement nor its values (the address) reach the line.
      expect(JSON.stringify(lines)).not.toContain(address);
    });

    it("claims each alone when the batch claim fails, and logs that once per cause, not per key or batch", async () => {
      const { repo: batching, lines, names } = recorded();
      const merchant = uuidv7();
      // The column holds 64 characters: a longer key breaks the whole batch statement.
      const tooLong = "k".repeat(65);
      for (const round of [1, 2]) {
        const [good, bad, other] = [intent(merchant), intent(merchant), intent(merchant)];
        const outcomes = await Promise.allSettled([
          batching.claimKey(claimInput(good, `good-${round}`)),
          batching.claimKey(claimInput(bad, tooLong)),
          batching.claimKey(claimInput(other, `other-${round}`)),
        ]);
        expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
        expect(outcomes[0]).toEqual({ status: "fulfilled", value: { kind: "claimed", intentUuid: good.intentUuid, claimedAt: expect.any(Date) } });
        expect(outcomes[2]).toEqual({ status: "fulfilled", value: { kind: "claimed", intentUuid: other.intentUuid, claimedAt: expect.any(Date) } });
      }
      expect(names.filter((n) => n === "payins.claim-keys")).toHaveLength(2);
      expect(lines.map((l) => [l.level, l.msg, l.cause, l.rows])).toEqual([
        [40, "a batched idempotency-key claim failed; its keys are claimed one statement each", { code: "22001", message: "value too long for type character varying(64)" }, 3],
      ]);
    });
  });
});
