import { describe, expect, it } from "vitest";
import type { MerchantDirectory, PayinContext } from "./create-pay-in-intent.js";
import { PayinContextCache } from "./payin-context-cache.js";

const SHOP = "0192a3b4-c5d6-7e8f-9012-3456789abcde";
const OTHER = "0192a3b4-c5d6-7e8f-9012-3456789abcdf";

const active: PayinContext = { status: "active", ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "standard", providerConnected: true, providerConnectedInJurisdiction: true };
const suspended: PayinContext = { ...active, status: "suspended" };

/** A directory whose answers the test sets, counting the lookups that reach it. */
function source() {
  const answers = new Map<string, PayinContext | null>();
  const pending: (() => void)[] = [];
  const state = {
    lookups: 0,
    /** When set, lookups wait until `release()`. */
    hold: false,
    set(merchantUuid: string, context: PayinContext | null) {
      answers.set(merchantUuid, context);
    },
    release() {
      for (const go of pending.splice(0)) go();
    },
    directory: {
      async payinContext(merchantUuid: string) {
        state.lookups++;
        // What the merchants service reads is what is committed when the lookup runs.
        const answer = answers.get(merchantUuid) ?? null;
        if (state.hold) await new Promise<void>((go) => pending.push(go));
        return answer;
      },
    } satisfies MerchantDirectory,
  };
  return state;
}

/** Lets pending promise callbacks run (a lookup reaches its source). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

function cache(options: { ttlMs?: number; maxEntries?: number } = {}) {
  const src = source();
  src.set(SHOP, active);
  src.set(OTHER, active);
  let now = 1_000_000;
  /** What catching up does: announcements still on their way arrive; its answer. */
  const catchUp = { arriving: [] as string[], answer: true, calls: 0 };
  const c: PayinContextCache = new PayinContextCache(src.directory, {
    ttlMs: options.ttlMs ?? 5_000,
    maxEntries: options.maxEntries ?? 100,
    now: () => now,
    catchUp: async () => {
      catchUp.calls++;
      for (const payload of catchUp.arriving.splice(0)) c.changed(payload);
      return catchUp.answer;
    },
  });
  return { src, c, catchUp, advance: (ms: number) => (now += ms) };
}

describe("PayinContextCache", () => {
  it("asks the source every time until announcements are known to arrive", async () => {
    const { src, c } = cache();
    await c.payinContext(SHOP, "DE");
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(2);
  });

  it("answers a merchant and jurisdiction from memory once listening, apart per jurisdiction", async () => {
    const { src, c } = cache();
    c.listening();
    expect(await c.payinContext(SHOP, "DE")).toEqual(active);
    expect(await c.payinContext(SHOP, "DE")).toEqual(active);
    expect(src.lookups).toBe(1);
    await c.payinContext(SHOP, "FR");
    expect(src.lookups).toBe(2);
  });

  it("catches up with the announcements before answering: a change committed before the lookup is always seen", async () => {
    const { src, c, catchUp } = cache();
    c.listening();
    expect(await c.payinContext(SHOP, "DE")).toEqual(active);
    // A suspension committed; its announcement has not been handled yet when the next create asks.
    src.set(SHOP, suspended);
    catchUp.arriving.push(SHOP);
    expect(await c.payinContext(SHOP, "DE")).toEqual(suspended);
    expect(src.lookups).toBe(2);
    expect(catchUp.calls).toBe(1);
  });

  it("goes straight to the source, without catching up, when it keeps nothing for the merchant and jurisdiction", async () => {
    const { src, c, catchUp } = cache();
    c.listening();
    await c.payinContext(SHOP, "DE");
    await c.payinContext(SHOP, "FR");
    expect(catchUp.calls).toBe(0);
    await c.payinContext(SHOP, "DE");
    expect(catchUp.calls).toBe(1);
    expect(src.lookups).toBe(2);
  });

  it("answers from the source, and keeps nothing, when announcements are lost while catching up", async () => {
    const src = source();
    src.set(SHOP, active);
    let loseWhileCatchingUp = false;
    const c: PayinContextCache = new PayinContextCache(src.directory, {
      ttlMs: 5_000,
      maxEntries: 10,
      catchUp: async () => {
        if (loseWhileCatchingUp) c.lost();
        return true;
      },
    });
    c.listening();
    await c.payinContext(SHOP, "DE");
    loseWhileCatchingUp = true;
    src.set(SHOP, suspended);
    expect(await c.payinContext(SHOP, "DE")).toEqual(suspended);
    expect(src.lookups).toBe(2);
    // Listening again: nothing was kept from before.
    loseWhileCatchingUp = false;
    c.listening();
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(3);
  });

  it("goes to the source, and keeps nothing, when catching up fails (the feed lost meanwhile)", async () => {
    const { src, c, catchUp } = cache();
    c.listening();
    await c.payinContext(SHOP, "DE");
    catchUp.answer = false;
    src.set(SHOP, suspended);
    expect(await c.payinContext(SHOP, "DE")).toEqual(suspended);
    expect(await c.payinContext(SHOP, "DE")).toEqual(suspended);
    expect(src.lookups).toBe(3);
    catchUp.answer = true;
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(3);
  });

  it("does not wait for catching up while announcements are not arriving", async () => {
    const { c, catchUp } = cache();
    await c.payinContext(SHOP, "DE");
    c.listening();
    c.lost();
    await c.payinContext(SHOP, "DE");
    expect(catchUp.calls).toBe(0);
  });

  it("drops a merchant's answers when a change to it is announced, and only that merchant's", async () => {
    const { src, c } = cache();
    c.listening();
    await c.payinContext(SHOP, "DE");
    await c.payinContext(OTHER, "DE");
    src.set(SHOP, suspended);
    c.changed(SHOP);
    expect(await c.payinContext(SHOP, "DE")).toEqual(suspended);
    expect(await c.payinContext(OTHER, "DE")).toEqual(active);
    expect(src.lookups).toBe(3);
  });

  it("drops everything on `*` (a rule) or a payload that is not a uuid", async () => {
    const { src, c } = cache();
    c.listening();
    await c.payinContext(SHOP, "DE");
    await c.payinContext(OTHER, "DE");
    c.changed("*");
    await c.payinContext(SHOP, "DE");
    await c.payinContext(OTHER, "DE");
    expect(src.lookups).toBe(4);
    c.changed("not-a-uuid");
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(5);
  });

  /**
   * A lookup reads `active`; while it is under way a suspension commits and
   * `between` happens: the answer is given but not kept, so the next create sees
   * the suspension.
   */
  async function expectNotKeptAcross(between: (c: PayinContextCache) => void): Promise<void> {
    const { src, c } = cache();
    c.listening();
    src.hold = true;
    const stale = c.payinContext(SHOP, "DE");
    await settled();
    src.set(SHOP, suspended);
    between(c);
    src.release();
    expect(await stale).toEqual(active);
    src.hold = false;
    expect(await c.payinContext(SHOP, "DE")).toEqual(suspended);
    expect(src.lookups).toBe(2);
  }

  it("does not keep an answer fetched while a change was announced (it may predate the change)", async () => {
    await expectNotKeptAcross((c) => c.changed(SHOP));
  });

  it("a change to another merchant during a lookup also keeps it from being kept (one counter for all)", async () => {
    const { src, c } = cache();
    c.listening();
    src.hold = true;
    const first = c.payinContext(SHOP, "DE");
    await settled();
    c.changed(OTHER);
    src.release();
    await first;
    src.hold = false;
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(2);
  });

  it("forgets everything and asks the source while announcements are lost, and starts afresh when they are back", async () => {
    const { src, c } = cache();
    c.listening();
    await c.payinContext(SHOP, "DE");
    c.lost();
    src.set(SHOP, suspended);
    expect(await c.payinContext(SHOP, "DE")).toEqual(suspended);
    expect(await c.payinContext(SHOP, "DE")).toEqual(suspended);
    expect(src.lookups).toBe(3);
    // A lookup that started while lost is not kept after listening resumes.
    src.hold = true;
    const during = c.payinContext(SHOP, "DE");
    await settled();
    c.listening();
    src.release();
    await during;
    src.hold = false;
    await c.payinContext(SHOP, "DE");
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(5);
  });

  it("uses an answer for ttlMs at most", async () => {
    const { src, c, advance } = cache({ ttlMs: 5_000 });
    c.listening();
    await c.payinContext(SHOP, "DE");
    advance(4_999);
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(1);
    advance(1);
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(2);
  });

  it("keeps nothing when ttlMs is 0", async () => {
    const { src, c } = cache({ ttlMs: 0 });
    c.listening();
    await c.payinContext(SHOP, "DE");
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(2);
  });

  it("keeps a missing merchant's answer (null) until the merchant is created", async () => {
    const { src, c } = cache();
    const created = "0192a3b4-c5d6-7e8f-9012-000000000001";
    c.listening();
    expect(await c.payinContext(created, "DE")).toBeNull();
    expect(await c.payinContext(created, "DE")).toBeNull();
    expect(src.lookups).toBe(1);
    src.set(created, active);
    c.changed(created);
    expect(await c.payinContext(created, "DE")).toEqual(active);
  });

  it("never keeps a merchant uuid that is not canonical lower case (announcements would not match it)", async () => {
    const { src, c } = cache();
    c.listening();
    src.set(SHOP.toUpperCase(), active);
    await c.payinContext(SHOP.toUpperCase(), "DE");
    await c.payinContext(SHOP.toUpperCase(), "DE");
    expect(src.lookups).toBe(2);
  });

  it("keeps at most maxEntries answers in all, jurisdictions of one merchant included", async () => {
    const { src, c } = cache({ maxEntries: 3 });
    c.listening();
    for (const j of ["DE", "FR", "NL", "PL", "SE"]) await c.payinContext(SHOP, j);
    expect(src.lookups).toBe(5);
    // The merchant's answers went when there was no room for a fourth: only the last ones are kept.
    await c.payinContext(SHOP, "SE");
    expect(src.lookups).toBe(5);
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(6);
  });

  it("keeps at most maxEntries answers, dropping the oldest merchant's first", async () => {
    const { src, c } = cache({ maxEntries: 2 });
    const third = "0192a3b4-c5d6-7e8f-9012-000000000003";
    src.set(third, active);
    c.listening();
    await c.payinContext(SHOP, "DE");
    await c.payinContext(OTHER, "DE");
    await c.payinContext(third, "DE");
    expect(src.lookups).toBe(3);
    await c.payinContext(third, "DE");
    await c.payinContext(OTHER, "DE");
    expect(src.lookups).toBe(3);
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(4);
  });

  it("does not keep a failed lookup", async () => {
    let calls = 0;
    const c = new PayinContextCache(
      { payinContext: async () => (calls++ === 0 ? Promise.reject(new Error("merchants unavailable")) : active) },
      { ttlMs: 5_000, maxEntries: 10, catchUp: async () => true },
    );
    c.listening();
    await expect(c.payinContext(SHOP, "DE")).rejects.toThrow("merchants unavailable");
    expect(await c.payinContext(SHOP, "DE")).toEqual(active);
    expect(calls).toBe(2);
  });
  it("keeps answers on its own monotonic clock when none is given", async () => {
    const src = source();
    src.set(SHOP, active);
    const c = new PayinContextCache(src.directory, { ttlMs: 60_000, maxEntries: 10, catchUp: async () => true });
    c.listening();
    await c.payinContext(SHOP, "DE");
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(1);
  });

  it("does not keep an answer fetched when catching up failed: what was kept before stays as it was", async () => {
    const { src, c, catchUp } = cache();
    c.listening();
    expect(await c.payinContext(SHOP, "DE")).toEqual(active);
    const fetchedWhileUnsure: PayinContext = { ...active, operatingMode: "custodial" };
    src.set(SHOP, fetchedWhileUnsure);
    catchUp.answer = false;
    expect(await c.payinContext(SHOP, "DE")).toEqual(fetchedWhileUnsure);
    catchUp.answer = true;
    expect(await c.payinContext(SHOP, "DE")).toEqual(active);
    expect(src.lookups).toBe(2);
  });

  it("does not let answers it never serves (uuids not in canonical case) take room from the others", async () => {
    const { src, c } = cache({ maxEntries: 1 });
    c.listening();
    src.set(OTHER.toUpperCase(), active);
    await c.payinContext(SHOP, "DE");
    await c.payinContext(OTHER.toUpperCase(), "DE");
    await c.payinContext(SHOP, "DE");
    expect(src.lookups).toBe(2);
  });

  it("counts an answer fetched again after it expired once: it takes no more room than before", async () => {
    const { src, c, advance } = cache({ ttlMs: 5_000, maxEntries: 2 });
    c.listening();
    await c.payinContext(SHOP, "DE");
    advance(5_000);
    await c.payinContext(SHOP, "DE");
    await c.payinContext(OTHER, "DE");
    expect(src.lookups).toBe(3);
    // Both fit: neither was dropped to make room.
    await c.payinContext(SHOP, "DE");
    await c.payinContext(OTHER, "DE");
    expect(src.lookups).toBe(3);
  });

  it("answers, and does not hang making room, when maxEntries is 0", async () => {
    const { c } = cache({ maxEntries: 0 });
    c.listening();
    for (const merchant of [SHOP, OTHER, SHOP]) expect(await c.payinContext(merchant, "DE")).toEqual(active);
  });

  it("does not keep an answer fetched across an announcement and a reconnection", async () => {
    await expectNotKeptAcross((c) => {
      c.changed(OTHER);
      c.listening();
    });
  });

  it("does not keep an answer fetched across a loss and a reconnection", async () => {
    await expectNotKeptAcross((c) => {
      c.lost();
      c.listening();
    });
  });

  it("answers from a kept answer when the source fails, until it expires, also while announcements are lost", async () => {
    let failing = false;
    const src = source();
    src.set(SHOP, active);
    let now = 0;
    const c = new PayinContextCache(
      { payinContext: (m) => (failing ? Promise.reject(new Error("merchants unavailable")) : src.directory.payinContext(m)) },
      { ttlMs: 5_000, maxEntries: 10, now: () => now, catchUp: async () => false },
    );
    c.listening();
    await c.payinContext(SHOP, "DE");
    c.lost();
    failing = true;
    expect(await c.payinContext(SHOP, "DE")).toEqual(active);
    await expect(c.payinContext(OTHER, "DE")).rejects.toThrow("merchants unavailable");
    now += 5_000;
    await expect(c.payinContext(SHOP, "DE")).rejects.toThrow("merchants unavailable");
  });
});
