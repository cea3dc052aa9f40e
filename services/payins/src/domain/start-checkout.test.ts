import { describe, expect, it } from "vitest";
import { DomainError } from "@payin/errors";
import { payableTermsOf, railsFromEnv } from "@payin/rails";
import type { CheckoutRecord, CheckoutSession, CheckoutStore, StartTerms } from "./checkout-session.js";
import { tokenHash } from "./checkout-session.js";
import { PayinsReason } from "./reasons.js";
import type { CreateDeps, KeyClaim, PayInStore } from "./create-pay-in-intent.js";
import type { PayInIntent } from "./pay-in-intent.js";
import { checkoutIdempotencyKey, getCheckoutByToken, getCheckoutsByToken, MAX_BATCH_TOKENS, startCheckout, type StartCheckoutDeps } from "./start-checkout.js";

const TOKEN = "t".repeat(43);
/** The mainnet defaults' minimums (0.001). */
const RAILS = payableTermsOf(railsFromEnv({}));
const now = new Date("2026-11-27T12:00:00.000Z");

/** One session in memory. */
function memory(start: StartTerms | null = null) {
  const record: CheckoutRecord = {
    session: {
      checkoutUuid: "0190f000-0000-7000-8000-000000000001", merchantUuid: "0190f000-0000-7000-8000-000000000002", reference: null,
      description: null, amount: "5", pairs: [{ asset: "usdt", rail: "bep20" }], jurisdiction: "DE", state: "open", intentUuid: null,
      paymentWindowS: 60, createdAt: now, updatedAt: now,
    },
    intentStatus: null,
    start,
  };
  const claims: StartTerms[] = [];
  const store: CheckoutStore = {
    insert: async () => {},
    get: async () => record,
    getByTokenHash: async (hash) => (hash === tokenHash(TOKEN) ? record : null),
    list: async () => ({ records: [record], total: 1 }),
    disable: async () => false,
    claimTerms: async (_, terms, previous) => {
      if ((record.start?.claimedAt.getTime() ?? null) !== (previous?.getTime() ?? null)) return false;
      claims.push(terms);
      record.start = terms;
      return true;
    },
    releaseTerms: async () => {
      record.start = null;
    },
    link: async (_, intentUuid) => {
      record.session.state = "started";
      record.session.intentUuid = intentUuid;
      return true;
    },
  };
  return { record, store, claims };
}

const create = (store: PayInStore, created: PayInIntent[]): CreateDeps => ({
  store: {
    ...store,
    completeKey: async (intent) => {
      created.push(intent);
    },
  },
  merchants: { payinContext: async () => ({ status: "active", ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "m", providerConnected: true, providerConnectedInJurisdiction: true }) },
  allocator: { allocate: async () => ({ address: "0x1", reference: "m/0" }) },
  rails: RAILS,
  newUuid: () => "0190f000-0000-7000-8000-0000000000aa",
  now: () => now,
});

describe("startCheckout", () => {
  it("fixes terms one payment window away and creates the intent under the checkout's key", async () => {
    const { store, claims, record } = memory();
    const created: PayInIntent[] = [];
    const keys: string[] = [];
    const keyStore: PayInStore = {
      claimKey: async (input) => {
        keys.push(input.key);
        return { kind: "claimed", intentUuid: input.newIntentUuid, claimedAt: input.now };
      },
      completeKey: async () => {},
      releaseKey: async () => false,
    };
    const deps = { checkouts: store, intents: { get: async () => null }, create: create(keyStore, created), now: () => now, sleep: async () => {} };
    const { intent } = await startCheckout(deps, { token: TOKEN, pair: undefined });
    expect(claims).toEqual([{ asset: "usdt", rail: "bep20", expiresAt: new Date(now.getTime() + 60_000), claimedAt: now }]);
    expect(keys).toEqual([checkoutIdempotencyKey(record.session.checkoutUuid)]);
    expect(intent).toMatchObject({ asset: "usdt", expectedAmount: "5", expiresAt: new Date(now.getTime() + 60_000) });
    expect(record.session).toMatchObject({ state: "started", intentUuid: intent.intentUuid });
  });

  it("replaces terms whose deadline passed without an intent", async () => {
    const old: StartTerms = { asset: "usdt", rail: "bep20", expiresAt: now, claimedAt: new Date(now.getTime() - 60_000) };
    const { store, claims } = memory(old);
    const keyStore: PayInStore = {
      claimKey: async (input) => ({ kind: "claimed", intentUuid: input.newIntentUuid, claimedAt: input.now }),
      completeKey: async () => {},
      releaseKey: async () => false,
    };
    const deps = { checkouts: store, intents: { get: async () => null }, create: create(keyStore, []), now: () => now, sleep: async () => {} };
    await startCheckout(deps, { token: TOKEN, pair: undefined });
    expect(claims.map((c) => c.expiresAt)).toEqual([new Date(now.getTime() + 60_000)]);
  });

  it("waits for a concurrent start's create, then gives up with IDEMPOTENCY_KEY_IN_USE and keeps the terms", async () => {
    const { store, record } = memory();
    let clock = now.getTime();
    const sleeps: number[] = [];
    // Another request holds the key with this very payload, and never finishes.
    const held: PayInStore = {
      claimKey: async (input): Promise<KeyClaim> => ({ kind: "in-flight", requestHash: input.requestHash }),
      completeKey: async () => {},
      releaseKey: async () => false,
    };
    const deps = {
      checkouts: store,
      intents: { get: async () => null },
      create: create(held, []),
      now: () => new Date(clock),
      sleep: async (ms: number) => {
        sleeps.push(ms);
        clock += ms;
      },
      maxWaitMs: 1_000,
    };
    await expect(startCheckout(deps, { token: TOKEN, pair: undefined })).rejects.toMatchObject({ reason: "IDEMPOTENCY_KEY_IN_USE" });
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1_000);
    expect(sleeps.every((ms) => ms > 0 && ms <= 200)).toBe(true);
    // The terms stay: the create in flight uses them.
    expect(record.start).not.toBeNull();
  });

  it("answers an intent created under expired terms but not recorded, rather than fixing new terms", async () => {
    const old: StartTerms = { asset: "usdt", rail: "bep20", expiresAt: new Date(now.getTime() - 1), claimedAt: new Date(now.getTime() - 60_001) };
    const { store, claims, record } = memory(old);
    const earlier = { intentUuid: "0190f000-0000-7000-8000-0000000000bb" } as PayInIntent;
    const done: PayInStore = {
      claimKey: async (input): Promise<KeyClaim> => ({ kind: "completed", requestHash: input.requestHash, intent: earlier }),
      completeKey: async () => {},
      releaseKey: async () => false,
    };
    const deps = { checkouts: store, intents: { get: async () => null }, create: create(done, []), now: () => now, sleep: async () => {} };
    const { intent } = await startCheckout(deps, { token: TOKEN, pair: undefined });
    expect(intent.intentUuid).toBe(earlier.intentUuid);
    expect(claims).toEqual([]);
    expect(record.session.intentUuid).toBe(earlier.intentUuid);
  });
});

// --- A session, its idempotency keys and its intents in memory, with every call the ports got.

const CHECKOUT = "0190f000-0000-7000-8000-000000000001";
const MERCHANT = "0190f000-0000-7000-8000-000000000002";
const INTENT = "0190f000-0000-7000-8000-0000000000aa";
const USDT = { asset: "usdt", rail: "bep20" } as const;
const USDC = { asset: "usdc", rail: "erc20" } as const;
const at = (ms: number) => new Date(now.getTime() + ms);

function world(over: { session?: Partial<CheckoutSession>; start?: StartTerms | null } = {}) {
  const record: CheckoutRecord = {
    session: {
      checkoutUuid: CHECKOUT, merchantUuid: MERCHANT, reference: "order-7", description: "Two tickets", amount: "12.5", pairs: [USDT, USDC],
      jurisdiction: "FR", state: "open", intentUuid: null, paymentWindowS: 900, createdAt: now, updatedAt: now, ...over.session,
    },
    intentStatus: null,
    start: over.start ?? null,
  };
  const calls: unknown[][] = [];
  const intents = new Map<string, PayInIntent>();
  const checkouts: CheckoutStore = {
    insert: async () => {},
    get: async () => structuredClone(record),
    getByTokenHash: async (hash) => {
      calls.push(["getByTokenHash", hash]);
      return hash === tokenHash(TOKEN) ? structuredClone(record) : null;
    },
    list: async () => ({ records: [record], total: 1 }),
    disable: async () => false,
    claimTerms: async (checkoutUuid, terms, previous) => {
      calls.push(["claimTerms", checkoutUuid, terms, previous]);
      if (record.session.state !== "open" || record.session.intentUuid) return false;
      if ((record.start?.claimedAt.getTime() ?? null) !== (previous?.getTime() ?? null)) return false;
      record.start = terms;
      return true;
    },
    releaseTerms: async (checkoutUuid, claimedAt) => {
      calls.push(["releaseTerms", checkoutUuid, claimedAt]);
      if (!record.session.intentUuid && record.start?.claimedAt.getTime() === claimedAt.getTime()) record.start = null;
    },
    link: async (checkoutUuid, intentUuid, when) => {
      calls.push(["link", checkoutUuid, intentUuid, when]);
      if (record.session.state === "disabled") return false;
      Object.assign(record.session, { state: "started", intentUuid, updatedAt: when });
      return true;
    },
  };
  // Idempotency keys as the pay-in store keeps them: claimed, released, completed.
  const keys = new Map<string, { requestHash: string; intentUuid: string; intent: PayInIntent | null; released: boolean }>();
  const keyStore: PayInStore = {
    claimKey: async (input) => {
      calls.push(["claimKey", input.merchantUuid, input.key]);
      const entry = keys.get(input.key);
      if (!entry) {
        keys.set(input.key, { requestHash: input.requestHash, intentUuid: input.newIntentUuid, intent: null, released: false });
        return { kind: "claimed", intentUuid: input.newIntentUuid, claimedAt: input.now };
      }
      if (entry.intent) return { kind: "completed", requestHash: entry.requestHash, intent: entry.intent };
      if (!entry.released) return { kind: "in-flight", requestHash: entry.requestHash };
      Object.assign(entry, { requestHash: input.requestHash, released: false });
      return { kind: "claimed", intentUuid: entry.intentUuid, claimedAt: input.now };
    },
    completeKey: async (intent, key) => {
      keys.get(key)!.intent = intent;
      intents.set(intent.intentUuid, intent);
    },
    releaseKey: async (_, key) => {
      keys.get(key)!.released = true;
      return true;
    },
  };
  const merchant = { status: "active" };
  const sleeps: number[] = [];
  let clock = now.getTime();
  const deps: StartCheckoutDeps = {
    checkouts,
    intents: {
      get: async (merchantUuid, intentUuid) => {
        calls.push(["getIntent", merchantUuid, intentUuid]);
        return intents.get(intentUuid) ?? null;
      },
    },
    create: {
      store: keyStore,
      merchants: { payinContext: async () => ({ status: merchant.status, ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "m", providerConnected: true, providerConnectedInJurisdiction: true }) },
      allocator: { allocate: async () => ({ address: "0x1", reference: "m/0" }) },
      rails: RAILS,
      newUuid: () => INTENT,
      now: () => new Date(clock),
    },
    now: () => new Date(clock),
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
  };
  const named = (name: string) => calls.filter((c) => c[0] === name);
  return { record, calls, named, intents, keys, keyStore, merchant, sleeps, deps, advance: (ms: number) => (clock += ms) };
}

/** An intent a start created, as createPayInIntent stores it. */
function intentOf(over: Partial<PayInIntent> = {}): PayInIntent {
  return {
    intentUuid: INTENT, merchantUuid: MERCHANT, status: "created", asset: "usdt", rail: "bep20", expectedAmount: "12.5", address: "0x1",
    allocationReference: "m/0", reference: "order-7", jurisdiction: "FR", createdAt: now, expiresAt: at(900_000), updatedAt: now, ...over,
  };
}

const key = checkoutIdempotencyKey(CHECKOUT);

describe("checkoutIdempotencyKey", () => {
  it("is the checkout's uuid under the checkout: prefix", () => {
    expect(key).toBe("checkout:0190f000-0000-7000-8000-000000000001");
  });
});

describe("getCheckoutByToken", () => {
  it("answers the session of a token, with no intent before a start", async () => {
    const w = world();
    await expect(getCheckoutByToken(w.deps, TOKEN)).resolves.toEqual({ record: w.record, intent: null });
    expect(w.calls).toEqual([["getByTokenHash", tokenHash(TOKEN)]]);
  });

  it("answers the session's intent, read as its merchant's", async () => {
    const w = world({ session: { state: "started", intentUuid: INTENT } });
    w.intents.set(INTENT, intentOf());
    await expect(getCheckoutByToken(w.deps, TOKEN)).resolves.toEqual({ record: w.record, intent: intentOf() });
    expect(w.named("getIntent")).toEqual([["getIntent", MERCHANT, INTENT]]);
  });

  it("answers CHECKOUT_NOT_FOUND for an unknown token, and for a malformed one without a lookup", async () => {
    const w = world();
    const notFound = new DomainError("CHECKOUT_NOT_FOUND", "checkout not found");
    await expect(getCheckoutByToken(w.deps, "u".repeat(43))).rejects.toEqual(notFound);
    expect(w.calls).toHaveLength(1);
    for (const token of ["", `${TOKEN}t`, "t".repeat(42), "../etc/passwd"]) {
      await expect(getCheckoutByToken(w.deps, token)).rejects.toEqual(notFound);
    }
    expect(w.calls).toHaveLength(1);
  });
});

describe("startCheckout over the session's terms", () => {
  it("creates the intent with the chosen pair, the session's amount, jurisdiction and reference, and records it", async () => {
    const w = world();
    const { record, intent } = await startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdc", rail: "erc20" } });
    const terms = { ...USDC, expiresAt: at(900_000), claimedAt: now };
    expect(w.named("claimTerms")).toEqual([["claimTerms", CHECKOUT, terms, null]]);
    expect(w.named("claimKey")).toEqual([["claimKey", MERCHANT, key]]);
    expect(intent).toEqual(intentOf({ asset: "usdc", rail: "erc20" }));
    expect(w.named("link")).toEqual([["link", CHECKOUT, INTENT, now]]);
    // The session as read after the link.
    expect(record).toEqual({ session: { ...w.record.session, state: "started", intentUuid: INTENT }, intentStatus: null, start: terms });
    expect(w.record.session).toMatchObject({ state: "started", intentUuid: INTENT });
  });

  it("creates an intent without a reference for a session without one", async () => {
    const w = world({ session: { reference: null, pairs: [USDT] } });
    const { intent } = await startCheckout(w.deps, { token: TOKEN, pair: undefined });
    expect(intent).toEqual(intentOf({ reference: null }));
  });

  it("answers the existing intent once the session has one, fixing and creating nothing", async () => {
    const w = world({ session: { state: "started", intentUuid: INTENT }, start: { ...USDT, expiresAt: at(-1), claimedAt: at(-900_001) } });
    w.intents.set(INTENT, intentOf());
    const result = await startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdc", rail: "erc20" } });
    expect(result).toEqual({ record: w.record, intent: intentOf() });
    expect(w.calls.map((c) => c[0])).toEqual(["getByTokenHash", "getIntent"]);
  });

  it("is the same intent for a retried start", async () => {
    const w = world();
    const first = await startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdt", rail: "bep20" } });
    w.advance(5_000);
    const again = await startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdc", rail: "erc20" } });
    expect(again.intent).toEqual(first.intent);
    expect(w.named("claimTerms")).toHaveLength(1);
    expect(w.named("claimKey")).toHaveLength(1);
  });

  it("refuses a disabled session with CHECKOUT_UNAVAILABLE", async () => {
    const w = world({ session: { state: "disabled" } });
    await expect(startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdt", rail: "bep20" } })).rejects.toEqual(
      new DomainError("CHECKOUT_UNAVAILABLE", "this checkout is not available"),
    );
    expect(w.calls.map((c) => c[0])).toEqual(["getByTokenHash"]);
  });

  it("refuses an unknown token with CHECKOUT_NOT_FOUND", async () => {
    const w = world();
    await expect(startCheckout(w.deps, { token: "u".repeat(43), pair: undefined })).rejects.toMatchObject({ reason: "CHECKOUT_NOT_FOUND" });
  });

  it("refuses a start naming no pair among several, or one not offered, before fixing terms", async () => {
    const w = world();
    await expect(startCheckout(w.deps, { token: TOKEN, pair: undefined })).rejects.toMatchObject({
      reason: "VALIDATION_ERROR", message: "choose one of the checkout's asset/rail pairs",
    });
    await expect(startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdc", rail: "bep20" } })).rejects.toMatchObject({ reason: "VALIDATION_ERROR" });
    expect(w.named("claimTerms")).toEqual([]);
    expect(w.named("claimKey")).toEqual([]);
  });

  it("answers CHECKOUT_UNAVAILABLE when the session was disabled before the intent could be recorded", async () => {
    const w = world();
    w.deps.checkouts.link = async () => false;
    await expect(startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdt", rail: "bep20" } })).rejects.toMatchObject({
      reason: "CHECKOUT_UNAVAILABLE", message: "this checkout is not available",
    });
  });

  it("gives its terms up when the create is refused, so a later start fixes them anew", async () => {
    const w = world();
    w.merchant.status = "suspended";
    await expect(startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdt", rail: "bep20" } })).rejects.toMatchObject({ reason: "MERCHANT_NOT_ACTIVE" });
    expect(w.named("releaseTerms")).toEqual([["releaseTerms", CHECKOUT, now]]);
    expect(w.record.start).toBeNull();
    expect(w.record.session.state).toBe("open");

    w.merchant.status = "active";
    w.advance(10_000);
    const { intent } = await startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdc", rail: "erc20" } });
    expect(w.named("claimTerms").map((c) => c[3])).toEqual([null, null]);
    expect(intent).toMatchObject({ asset: "usdc", expiresAt: at(910_000) });
    expect(w.record.start).toEqual({ ...USDC, expiresAt: at(910_000), claimedAt: at(10_000) });
  });

  it("keeps another start's terms when a create with them is refused", async () => {
    const theirs: StartTerms = { ...USDC, expiresAt: at(60_000), claimedAt: at(-840_000) };
    const w = world({ start: theirs });
    w.merchant.status = "suspended";
    await expect(startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdt", rail: "bep20" } })).rejects.toMatchObject({ reason: "MERCHANT_NOT_ACTIVE" });
    expect(w.named("releaseTerms")).toEqual([]);
    expect(w.record.start).toEqual(theirs);
  });

  it("keeps its terms when the create fails for a reason other than a refusal", async () => {
    const w = world();
    w.deps.create.allocator.allocate = async () => {
      throw new Error("allocation unreachable");
    };
    await expect(startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdt", rail: "bep20" } })).rejects.toThrow("allocation unreachable");
    expect(w.named("releaseTerms")).toEqual([]);
    expect(w.record.start).toEqual({ ...USDT, expiresAt: at(900_000), claimedAt: now });
  });

  it("joins terms another start fixed, whichever pair this one names", async () => {
    const theirs: StartTerms = { ...USDC, expiresAt: at(1), claimedAt: at(-899_999) };
    const w = world({ start: theirs });
    const { intent } = await startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdt", rail: "bep20" } });
    expect(intent).toEqual(intentOf({ asset: "usdc", rail: "erc20", expiresAt: at(1) }));
    expect(w.named("claimTerms")).toEqual([]);
    expect(w.named("claimKey")).toHaveLength(1);
  });

  it("joins the terms of a start that claimed them first, rather than its own", async () => {
    const w = world();
    const theirs: StartTerms = { ...USDC, expiresAt: at(899_990), claimedAt: at(-10) };
    const claim = w.deps.checkouts.claimTerms;
    w.deps.checkouts.claimTerms = async (checkoutUuid, terms, previous) => {
      if (!w.record.start) w.record.start = theirs; // the other start wins the race
      return claim(checkoutUuid, terms, previous);
    };
    const { intent, record } = await startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdt", rail: "bep20" } });
    expect(intent).toEqual(intentOf({ asset: "usdc", rail: "erc20", expiresAt: at(899_990) }));
    expect(record.start).toEqual(theirs);
    expect(w.named("claimTerms")).toHaveLength(1);
  });
});

describe("startCheckout over terms whose deadline passed", () => {
  it("answers an intent their create made but did not record, also at the deadline instant", async () => {
    const old: StartTerms = { ...USDT, expiresAt: now, claimedAt: at(-900_000) };
    const w = world({ start: old });
    const earlier = intentOf({ expiresAt: now });
    // Its key completed with this very payload.
    w.deps.create.store = { ...w.keyStore, claimKey: async (input) => ({ kind: "completed", requestHash: input.requestHash, intent: earlier }) };
    const { intent } = await startCheckout(w.deps, { token: TOKEN, pair: undefined });
    expect(intent).toEqual(earlier);
    expect(w.named("claimTerms")).toEqual([]);
    expect(w.record.session).toMatchObject({ state: "started", intentUuid: INTENT });
  });

  it("replaces them with fresh terms after the replay finds no intent", async () => {
    const old: StartTerms = { ...USDT, expiresAt: at(-1), claimedAt: at(-900_001) };
    const w = world({ start: old });
    const { intent } = await startCheckout(w.deps, { token: TOKEN, pair: { asset: "usdc", rail: "erc20" } });
    expect(w.named("claimTerms")).toEqual([["claimTerms", CHECKOUT, { ...USDC, expiresAt: at(900_000), claimedAt: now }, old.claimedAt]]);
    // The replay of the old terms released the key; the new terms take it over.
    expect(w.named("claimKey")).toHaveLength(2);
    expect(intent).toEqual(intentOf({ asset: "usdc", rail: "erc20" }));
  });

  it("waits for their create while it is still in flight rather than replacing them", async () => {
    const old: StartTerms = { ...USDT, expiresAt: at(-1), claimedAt: at(-900_001) };
    const w = world({ start: old });
    const earlier = intentOf({ expiresAt: at(-1) });
    let claims = 0;
    w.deps.create.store = {
      ...w.keyStore,
      claimKey: async (input) =>
        ++claims < 3 ? { kind: "in-flight", requestHash: input.requestHash } : { kind: "completed", requestHash: input.requestHash, intent: earlier },
    };
    const { intent } = await startCheckout(w.deps, { token: TOKEN, pair: undefined });
    expect(intent).toEqual(earlier);
    expect(w.sleeps).toEqual([20, 40]);
    expect(w.named("claimTerms")).toEqual([]);
  });

  it("fails, fixing nothing, when their replay fails for a reason other than the deadline", async () => {
    const old: StartTerms = { ...USDT, expiresAt: at(-1), claimedAt: at(-900_001) };
    const w = world({ start: old });
    w.deps.create.store = {
      ...w.keyStore,
      claimKey: async () => {
        throw new Error("store unreachable");
      },
    };
    await expect(startCheckout(w.deps, { token: TOKEN, pair: undefined })).rejects.toThrow("store unreachable");
    w.deps.create.store = {
      ...w.keyStore,
      claimKey: async () => ({ kind: "in-flight", requestHash: "another payload" }),
    };
    await expect(startCheckout(w.deps, { token: TOKEN, pair: undefined })).rejects.toMatchObject({ reason: "IDEMPOTENCY_KEY_REUSED" });
    expect(w.named("claimTerms")).toEqual([]);
    expect(w.record.start).toEqual(old);
  });
});

describe("startCheckout while another start's create is in flight", () => {
  const inFlight = (w: ReturnType<typeof world>, times: number, then?: PayInIntent) => {
    let claims = 0;
    w.deps.create.store = {
      ...w.keyStore,
      claimKey: async (input) =>
        ++claims <= times || !then ? { kind: "in-flight", requestHash: input.requestHash } : { kind: "completed", requestHash: input.requestHash, intent: then },
    };
  };

  it("backs off 20 ms more each time, up to 200 ms, and answers the intent once that create completes", async () => {
    const w = world({ start: { ...USDT, expiresAt: at(900_000), claimedAt: now } });
    inFlight(w, 12, intentOf());
    const { intent, record } = await startCheckout(w.deps, { token: TOKEN, pair: undefined });
    expect(w.sleeps).toEqual([20, 40, 60, 80, 100, 120, 140, 160, 180, 200, 200, 200]);
    expect(intent).toEqual(intentOf());
    expect(record.session.intentUuid).toBe(INTENT);
    expect(w.named("claimTerms")).toEqual([]);
  });

  it("answers the intent a concurrent start recorded while this one waited", async () => {
    const w = world({ start: { ...USDT, expiresAt: at(900_000), claimedAt: now } });
    inFlight(w, Infinity);
    w.deps.sleep = async () => {
      w.intents.set(INTENT, intentOf());
      Object.assign(w.record.session, { state: "started", intentUuid: INTENT });
    };
    const { intent } = await startCheckout(w.deps, { token: TOKEN, pair: undefined });
    expect(intent).toEqual(intentOf());
    expect(w.named("link")).toEqual([]);
  });

  it("gives up with IDEMPOTENCY_KEY_IN_USE once it has waited the max wait", async () => {
    const w = world({ session: { pairs: [USDT] } });
    w.deps.maxWaitMs = 900;
    inFlight(w, Infinity);
    await expect(startCheckout(w.deps, { token: TOKEN, pair: undefined })).rejects.toEqual(
      new DomainError("IDEMPOTENCY_KEY_IN_USE", "a request with this Idempotency-Key is still in progress; retry later with the same key and body"),
    );
    // 20 + 40 + … + 180 is exactly 900 ms: no further wait.
    expect(w.sleeps).toEqual([20, 40, 60, 80, 100, 120, 140, 160, 180]);
  });

  it("waits 15 s at most by default", async () => {
    const w = world({ session: { pairs: [USDT] } });
    inFlight(w, Infinity);
    await expect(startCheckout(w.deps, { token: TOKEN, pair: undefined })).rejects.toMatchObject({ reason: "IDEMPOTENCY_KEY_IN_USE" });
    // 20 … 200 (1.1 s), then 200 ms each: the wait that reaches 15 s is the last.
    expect(w.sleeps).toHaveLength(80);
    expect(w.sleeps.reduce((a, b) => a + b, 0)).toBe(15_100);
  });
});

describe("getCheckoutsByToken", () => {
  const OTHER_MERCHANT = "0190f000-0000-7000-8000-0000000000ff";
  /** A session of `token` (its hash's record), with an intent or not, of MERCHANT unless told. */
  function sessionOf(intentUuid: string | null, merchantUuid = MERCHANT): CheckoutRecord {
    return {
      session: {
        checkoutUuid: CHECKOUT, merchantUuid, reference: null, description: null, amount: "5", pairs: [{ asset: "usdt", rail: "bep20" }],
        jurisdiction: "DE", state: intentUuid ? "started" : "open", intentUuid, paymentWindowS: 60, createdAt: now, updatedAt: now,
      },
      intentStatus: null,
      start: null,
    };
  }
  const tokens = { started: "a".repeat(43), open: "b".repeat(43), unknown: "c".repeat(43), foreign: "d".repeat(43) };
  const FOREIGN_INTENT = "0190f000-0000-7000-8000-0000000000fe";
  const records = new Map([
    [tokenHash(tokens.started), sessionOf(INTENT)],
    [tokenHash(tokens.open), sessionOf(null)],
    // Its intent belongs to another merchant than the session: never answered with it.
    [tokenHash(tokens.foreign), sessionOf(FOREIGN_INTENT)],
  ]);
  function reads() {
    const calls = { sessions: [] as string[][], intents: [] as string[][] };
    const deps = {
      checkouts: {
        getManyByTokenHash: async (hashes: readonly string[]) => {
          calls.sessions.push([...hashes]);
          return new Map([...records].filter(([hash]) => hashes.includes(hash)));
        },
      },
      intents: {
        getMany: async (uuids: readonly string[]) => {
          calls.intents.push([...uuids]);
          return [intentOf(), intentOf({ intentUuid: FOREIGN_INTENT, merchantUuid: OTHER_MERCHANT })].filter((i) => uuids.includes(i.intentUuid));
        },
      },
    };
    return { calls, deps };
  }

  it("answers each token's session and intent in the tokens' order, with two reads in all, each asked once", async () => {
    const { calls, deps } = reads();
    const answers = await getCheckoutsByToken(deps, [tokens.started, "not a token", tokens.open, tokens.unknown, tokens.started, tokens.foreign]);
    expect(answers).toEqual([
      { record: records.get(tokenHash(tokens.started)), intent: intentOf() },
      null,
      { record: records.get(tokenHash(tokens.open)), intent: null },
      null,
      { record: records.get(tokenHash(tokens.started)), intent: intentOf() },
      { record: records.get(tokenHash(tokens.foreign)), intent: null },
    ]);
    expect(calls.sessions).toEqual([[tokenHash(tokens.started), tokenHash(tokens.open), tokenHash(tokens.unknown), tokenHash(tokens.foreign)]]);
    expect(calls.intents).toEqual([[INTENT, FOREIGN_INTENT]]);
  });

  it("reads no intents when no session has one, and nothing at all when no token is well formed", async () => {
    const open = reads();
    expect(await getCheckoutsByToken(open.deps, [tokens.open, tokens.unknown])).toEqual([{ record: records.get(tokenHash(tokens.open)), intent: null }, null]);
    expect(open.calls).toEqual({ sessions: [[tokenHash(tokens.open), tokenHash(tokens.unknown)]], intents: [] });
    const malformed = reads();
    expect(await getCheckoutsByToken(malformed.deps, ["short", `${"e".repeat(42)}=`])).toEqual([null, null]);
    expect(malformed.calls).toEqual({ sessions: [], intents: [] });
  });

  it("takes 1 to MAX_BATCH_TOKENS tokens", async () => {
    const { deps } = reads();
    const refusal = { reason: PayinsReason.ValidationError, message: `a batch read takes 1 to ${MAX_BATCH_TOKENS} tokens` };
    await expect(getCheckoutsByToken(deps, [])).rejects.toMatchObject(refusal);
    await expect(getCheckoutsByToken(deps, Array.from({ length: MAX_BATCH_TOKENS + 1 }, () => tokens.open))).rejects.toMatchObject(refusal);
    await expect(getCheckoutsByToken(deps, Array.from({ length: MAX_BATCH_TOKENS }, () => tokens.open))).resolves.toHaveLength(MAX_BATCH_TOKENS);
  });
});
