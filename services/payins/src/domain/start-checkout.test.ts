import { describe, expect, it } from "vitest";
import type { CheckoutRecord, CheckoutStore, StartTerms } from "./checkout-session.js";
import { tokenHash } from "./checkout-session.js";
import type { CreateDeps, KeyClaim, PayInStore } from "./create-pay-in-intent.js";
import type { PayInIntent } from "./pay-in-intent.js";
import { checkoutIdempotencyKey, startCheckout } from "./start-checkout.js";

const TOKEN = "t".repeat(43);
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
  merchants: { payinContext: async () => ({ status: "active", ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "m", providerConnected: true }) },
  allocator: { allocate: async () => ({ address: "0x1", reference: "m/0" }) },
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
    expect(intent).toBe(earlier);
    expect(claims).toEqual([]);
    expect(record.session.intentUuid).toBe(earlier.intentUuid);
  });
});
