import { describe, expect, it } from "vitest";
import { DomainError } from "@payin/errors";
import { PAYIN_CAPABILITY } from "@payin/permissions";
import { payableTermsOf, railsFromEnv } from "@payin/rails";
import { refusal } from "@payin/testing/refusal";
import {
  authorise,
  createPayInIntent,
  type ClaimedKey,
  type CreateDeps,
  type KeyClaim,
  type PayinContext,
} from "./create-pay-in-intent.js";
import { validateCreate, type CreateRequest, type PayInIntent } from "./pay-in-intent.js";

const MERCHANT = "01a1fe6a-0000-7000-8000-000000000001";
const NOW = new Date("2029-06-01T12:00:00Z");
const CLAIMED_AT = new Date("2029-06-01T11:59:59Z");
const ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const PATH = "m/44'/60'/0'/0/7";

const request: CreateRequest = {
  merchantUuid: MERCHANT,
  idempotencyKey: "order-1-attempt",
  asset: "usdc",
  amount: "25.000",
  jurisdiction: "DE",
  expiresAt: new Date("2030-01-01T00:00:00Z"),
  reference: "order-1",
};
const requestHash = validateCreate(request).requestHash;

const allowed: PayinContext = { status: "active", ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "non_custodial", providerConnected: true, providerConnectedInJurisdiction: true };

/** The intent a successful create of `request` stores, for intent uuid `intentUuid`. */
function expectedIntent(intentUuid: string): PayInIntent {
  return {
    intentUuid,
    merchantUuid: MERCHANT,
    status: "created",
    asset: "usdc",
    rail: "erc20",
    expectedAmount: "25",
    address: ADDRESS,
    allocationReference: PATH,
    reference: "order-1",
    jurisdiction: "DE",
    createdAt: NOW,
    expiresAt: new Date("2030-01-01T00:00:00Z"),
    updatedAt: NOW,
  };
}

/** Fakes of every dependency, recording what the create asked of them. */
function fakes(options: { claim?: (newIntentUuid: string) => KeyClaim; context?: PayinContext | null } = {}) {
  const calls = {
    claims: [] as unknown[],
    lookups: [] as [string, string][],
    allocations: [] as [string, string, string][],
    completed: [] as [PayInIntent, string][],
    released: [] as [string, string, ClaimedKey][],
    releaseErrors: [] as unknown[],
  };
  const behaviour = {
    allocate: async (): Promise<{ address: string; reference: string }> => ({ address: ADDRESS, reference: PATH }),
    complete: async (): Promise<void> => {},
    release: async (): Promise<boolean> => true,
  };
  const claim = options.claim ?? ((newIntentUuid: string): KeyClaim => ({ kind: "claimed", intentUuid: newIntentUuid, claimedAt: CLAIMED_AT }));
  const context = options.context === undefined ? allowed : options.context;
  let uuids = 0;
  const deps: CreateDeps = {
    store: {
      async claimKey(input) {
        calls.claims.push(input);
        return claim(input.newIntentUuid);
      },
      async completeKey(intent, key) {
        calls.completed.push([intent, key]);
        return behaviour.complete();
      },
      async releaseKey(merchantUuid, key, claimed) {
        calls.released.push([merchantUuid, key, claimed]);
        return behaviour.release();
      },
    },
    merchants: {
      async payinContext(merchantUuid, jurisdiction) {
        calls.lookups.push([merchantUuid, jurisdiction]);
        return context;
      },
    },
    allocator: {
      async allocate(merchantUuid, intentUuid, rail) {
        calls.allocations.push([merchantUuid, intentUuid, rail]);
        return behaviour.allocate();
      },
    },
    // The mainnet defaults: USDT of 18 decimals on BEP20, USDC of 6 on ERC20, both from 0.001.
    rails: payableTermsOf(railsFromEnv({})),
    newUuid: () => `0192a3b4-0000-7000-8000-00000000000${++uuids}`,
    now: () => NOW,
    onReleaseError: (error) => calls.releaseErrors.push(error),
  };
  return { deps, calls, behaviour };
}

describe("createPayInIntent: a new key", () => {
  it("claims the key with the request's fingerprint and a new intent uuid, at the clock's time", async () => {
    const { deps, calls } = fakes();
    await createPayInIntent(deps, request);
    expect(calls.claims).toEqual([
      { merchantUuid: MERCHANT, key: "order-1-attempt", requestHash, newIntentUuid: "0192a3b4-0000-7000-8000-000000000001", now: NOW },
    ]);
    expect(calls.lookups).toEqual([[MERCHANT, "DE"]]);
  });

  it("allocates the address on the asset's rail for the claimed intent uuid, and stores the intent with the address and its derivation path", async () => {
    // A takeover of a released key keeps the key's original intent uuid, not the one minted now.
    const { deps, calls } = fakes({ claim: () => ({ kind: "claimed", intentUuid: "0192a3b4-0000-7000-8000-0000000000aa", claimedAt: CLAIMED_AT }) });
    const result = await createPayInIntent(deps, request);
    const intent = expectedIntent("0192a3b4-0000-7000-8000-0000000000aa");
    expect(result).toEqual({ intent, replayed: false });
    expect(calls.allocations).toEqual([[MERCHANT, "0192a3b4-0000-7000-8000-0000000000aa", "erc20"]]);
    // What is stored is read back: the address and allocation reference are the allocator's.
    expect(calls.completed).toEqual([[intent, "order-1-attempt"]]);
    expect(calls.completed[0]![0].allocationReference).toBe(PATH);
    expect(calls.completed[0]![0].address).toBe(ADDRESS);
    expect(calls.released).toEqual([]);
  });

  it("routes usdt to bep20", async () => {
    const { deps, calls } = fakes();
    const { intent } = await createPayInIntent(deps, { ...request, asset: "usdt" });
    expect(intent.rail).toBe("bep20");
    expect(calls.allocations[0]![2]).toBe("bep20");
  });

  it("refuses a malformed request before it claims the key", async () => {
    const { deps, calls } = fakes();
    expect((await refusal(createPayInIntent(deps, { ...request, amount: "-1" }))).reason).toBe("VALIDATION_ERROR");
    expect(calls.claims).toEqual([]);
    expect(calls.lookups).toEqual([]);
  });
});

describe("createPayInIntent: a failed create releases its claim", () => {
  const claimed: ClaimedKey = { kind: "claimed", intentUuid: "0192a3b4-0000-7000-8000-000000000001", claimedAt: CLAIMED_AT };

  it("refuses a deadline already passed, stores nothing and releases the claim as it took it", async () => {
    const { deps, calls } = fakes();
    const refused = await refusal(createPayInIntent(deps, { ...request, expiresAt: NOW }));
    expect(refused).toEqual({ reason: "VALIDATION_ERROR", message: "expires_at must lie in the future" });
    expect(calls.allocations).toEqual([]);
    expect(calls.completed).toEqual([]);
    expect(calls.released).toEqual([[MERCHANT, "order-1-attempt", claimed]]);
  });

  it("refuses an amount below the rail's dust threshold, naming the minimum; stores nothing and releases the claim", async () => {
    for (const [asset, amount, token] of [["usdt", "0.0001", "USDT on BEP20"], ["usdc", "0.000999", "USDC on ERC20"]]) {
      const { deps, calls } = fakes();
      expect(await refusal(createPayInIntent(deps, { ...request, asset: asset!, amount: amount! }))).toEqual({
        reason: "VALIDATION_ERROR",
        message: `amount must be at least 0.001 ${token} (smaller transfers are dust and never count)`,
      });
      expect(calls.allocations).toEqual([]);
      expect(calls.completed).toEqual([]);
      expect(calls.released).toEqual([[MERCHANT, "order-1-attempt", claimed]]);
    }
  });

  it("takes the minimum itself", async () => {
    const { deps } = fakes();
    const { intent } = await createPayInIntent(deps, { ...request, amount: "0.001" });
    expect(intent.expectedAmount).toBe("0.001");
  });

  it("refuses an amount finer than the token's smallest unit, by the rails it is given", async () => {
    const { deps, calls } = fakes();
    const cents = payableTermsOf(railsFromEnv({ ERC20_TOKENS: "usdc:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48:2", ERC20_DUST_THRESHOLD: "0.01" }));
    expect(await refusal(createPayInIntent({ ...deps, rails: cents }, { ...request, amount: "10.005" }))).toEqual({
      reason: "VALIDATION_ERROR",
      message: "amount must be a whole multiple of 0.01 USDC on ERC20, the token's smallest unit (at least 0.01)",
    });
    expect(calls.allocations).toEqual([]);
    expect((await createPayInIntent({ ...deps, rails: cents }, { ...request, amount: "10.01" })).intent.expectedAmount).toBe("10.01");
  });

  it("checks the amount before the merchant", async () => {
    const { deps } = fakes({ context: null });
    expect((await refusal(createPayInIntent(deps, { ...request, amount: "0.0001" }))).reason).toBe("VALIDATION_ERROR");
  });

  it("refuses a merchant that may not take pay-ins, before any address is allocated", async () => {
    const { deps, calls } = fakes({ context: { ...allowed, status: "suspended" } });
    expect((await refusal(createPayInIntent(deps, request))).reason).toBe("MERCHANT_NOT_ACTIVE");
    expect(calls.allocations).toEqual([]);
    expect(calls.completed).toEqual([]);
    expect(calls.released).toEqual([[MERCHANT, "order-1-attempt", claimed]]);
  });

  it("refuses a merchant not connected to a provider for crypto.payin in the jurisdiction (PAYIN_NOT_READY, naming the pair, the jurisdiction and the reason), before any address is allocated", async () => {
    // Bound and connected for another jurisdiction only.
    const { deps, calls } = fakes({ context: { ...allowed, providerConnectedInJurisdiction: false } });
    expect(await refusal(createPayInIntent(deps, request))).toEqual({
      reason: "PAYIN_NOT_READY",
      message: "the merchant is not ready for usdc on erc20 in DE: provider_not_ready",
    });
    expect(calls.allocations).toEqual([]);
    expect(calls.completed).toEqual([]);
    expect(calls.released).toEqual([[MERCHANT, "order-1-attempt", claimed]]);
  });

  it("passes an allocator failure on, unchanged, and releases the claim", async () => {
    const { deps, calls, behaviour } = fakes();
    const failure = new DomainError("WALLET_NOT_READY", "no wallet");
    behaviour.allocate = async () => Promise.reject(failure);
    await expect(createPayInIntent(deps, request)).rejects.toBe(failure);
    expect(calls.completed).toEqual([]);
    expect(calls.released).toHaveLength(1);
  });

  it("releases the claim when storing the intent fails", async () => {
    const { deps, calls, behaviour } = fakes();
    const failure = new Error("connection lost");
    behaviour.complete = async () => Promise.reject(failure);
    await expect(createPayInIntent(deps, request)).rejects.toBe(failure);
    expect(calls.released).toEqual([[MERCHANT, "order-1-attempt", claimed]]);
  });

  it("reports a failed release and still answers with the create's own error", async () => {
    const { deps, calls, behaviour } = fakes({ context: null });
    const releaseFailure = new Error("release failed");
    behaviour.release = async () => Promise.reject(releaseFailure);
    expect(await refusal(createPayInIntent(deps, request))).toEqual({ reason: "MERCHANT_NOT_ACTIVE", message: "merchant does not exist" });
    expect(calls.releaseErrors).toEqual([releaseFailure]);
  });

  it("answers with the create's own error when a release fails and nobody listens for that", async () => {
    const { deps, behaviour } = fakes({ context: null });
    behaviour.release = async () => Promise.reject(new Error("release failed"));
    const { onReleaseError: _ignored, ...withoutListener } = deps;
    expect((await refusal(createPayInIntent(withoutListener, request))).reason).toBe("MERCHANT_NOT_ACTIVE");
  });
});

describe("createPayInIntent: a key used before", () => {
  const stored = expectedIntent("0192a3b4-0000-7000-8000-0000000000bb");

  it("replays the completed intent for the same payload, even for a merchant no longer active and after the deadline", async () => {
    const { deps, calls } = fakes({ claim: () => ({ kind: "completed", requestHash, intent: stored }), context: { ...allowed, status: "suspended" } });
    const result = await createPayInIntent({ ...deps, now: () => new Date("2031-01-01T00:00:00Z") }, { ...request, amount: "25" });
    expect(result).toEqual({ intent: stored, replayed: true });
    expect(calls.allocations).toEqual([]);
    expect(calls.completed).toEqual([]);
    expect(calls.released).toEqual([]);
  });

  it("replays the original answer, not the intent's current state: created, as it was when created", async () => {
    const later = new Date("2029-06-02T08:00:00Z");
    for (const status of ["awaiting_payment", "paid"] as const) {
      const now = { ...stored, status, updatedAt: later };
      const { deps } = fakes({ claim: () => ({ kind: "completed", requestHash, intent: now }) });
      const result = await createPayInIntent(deps, request);
      expect(result).toEqual({ intent: stored, replayed: true });
      expect(now.status, "the stored intent is left as it is").toBe(status);
    }
  });

  it("replays an intent created under a lower minimum than today's (the minimum applies to new intents)", async () => {
    const tiny = { ...stored, expectedAmount: "0.0005" };
    const hashOfTiny = validateCreate({ ...request, amount: "0.0005" }).requestHash;
    const { deps, calls } = fakes({ claim: () => ({ kind: "completed", requestHash: hashOfTiny, intent: tiny }) });
    expect(await createPayInIntent(deps, { ...request, amount: "0.0005" })).toEqual({ intent: tiny, replayed: true });
    expect(calls.released).toEqual([]);
  });

  it("refuses another payload under a completed key with IDEMPOTENCY_KEY_REUSED", async () => {
    const { deps, calls } = fakes({ claim: () => ({ kind: "completed", requestHash, intent: stored }) });
    expect((await refusal(createPayInIntent(deps, { ...request, amount: "26" }))).reason).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(calls.released).toEqual([]);
  });

  it("answers IDEMPOTENCY_KEY_IN_USE while a request with the same key and payload is in flight, and leaves its claim alone", async () => {
    const { deps, calls } = fakes({ claim: () => ({ kind: "in-flight", requestHash }) });
    expect(await refusal(createPayInIntent(deps, request))).toEqual({
      reason: "IDEMPOTENCY_KEY_IN_USE",
      message: "a request with this Idempotency-Key is still in progress; retry later with the same key and body",
    });
    expect(calls.allocations).toEqual([]);
    expect(calls.completed).toEqual([]);
    expect(calls.released).toEqual([]);
  });

  it("compares a request against the in-flight request's stored fingerprint: another payload is IDEMPOTENCY_KEY_REUSED", async () => {
    const { deps, calls } = fakes({ claim: () => ({ kind: "in-flight", requestHash }) });
    expect((await refusal(createPayInIntent(deps, { ...request, reference: "order-2" }))).reason).toBe("IDEMPOTENCY_KEY_REUSED");
    // The same amount value is the same payload, whatever its spelling.
    expect((await refusal(createPayInIntent(deps, { ...request, amount: "25.0" }))).reason).toBe("IDEMPOTENCY_KEY_IN_USE");
    expect(calls.released).toEqual([]);
  });
});

describe("authorise", () => {
  it.each([
    [null, "MERCHANT_NOT_ACTIVE", "merchant does not exist"],
    [{ ...allowed, status: "suspended" }, "MERCHANT_NOT_ACTIVE", "merchant is suspended; pay-ins need an active merchant"],
    [{ ...allowed, ruleEffect: "deny" }, "PAYIN_NOT_ALLOWED", "a platform rule denies crypto.payin in US"],
    [{ ...allowed, ruleEffect: null }, "PAYIN_NOT_ALLOWED", "no platform rule allows crypto.payin in US"],
    [{ ...allowed, payinPolicyEffect: "deny" }, "PAYIN_NOT_ALLOWED", "the merchant's payin policy does not allow pay-ins"],
    [{ ...allowed, payinPolicyEffect: null }, "PAYIN_NOT_ALLOWED", "the merchant's payin policy does not allow pay-ins"],
    [{ ...allowed, ruleEffect: "deny", payinPolicyEffect: null }, "PAYIN_NOT_ALLOWED", "a platform rule denies crypto.payin in US"],
    [{ ...allowed, operatingMode: null }, "OPERATING_PROFILE_MISSING", "the merchant has no operating profile"],
    [{ ...allowed, operatingMode: "" }, "OPERATING_PROFILE_MISSING", "the merchant has no operating profile"],
    // A binding's jurisdiction is where its provider serves the merchant: one elsewhere does not count.
    [{ ...allowed, providerConnectedInJurisdiction: false }, "PAYIN_NOT_READY", "the merchant is not ready for usdt on bep20 in US: provider_not_ready"],
    [{ ...allowed, providerConnected: false, providerConnectedInJurisdiction: false }, "PAYIN_NOT_READY", "the merchant is not ready for usdt on bep20 in US: provider_not_ready"],
    // The older codes first, as before PAYIN_NOT_READY existed.
    [{ ...allowed, status: "closed", ruleEffect: null, operatingMode: null }, "MERCHANT_NOT_ACTIVE", "merchant is closed; pay-ins need an active merchant"],
    [{ ...allowed, ruleEffect: null, operatingMode: null, providerConnectedInJurisdiction: false }, "PAYIN_NOT_ALLOWED", "no platform rule allows crypto.payin in US"],
    [{ ...allowed, operatingMode: null, providerConnectedInJurisdiction: false }, "OPERATING_PROFILE_MISSING", "the merchant has no operating profile"],
  ] as [PayinContext | null, string, string][])("refuses %j: %s", (context, reason, message) => {
    let caught: unknown;
    try {
      authorise(context, { asset: "usdt", rail: "bep20", jurisdiction: "US" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect({ reason: (caught as DomainError).reason, message: (caught as DomainError).message }).toEqual({ reason, message });
  });

  it("accepts a merchant bound and connected in the pay-in's jurisdiction, whatever the merchant-wide flag says", () => {
    expect(() => authorise({ ...allowed, providerConnected: false }, { asset: "usdc", rail: "erc20", jurisdiction: "FR" })).not.toThrow();
    expect(() => authorise(allowed, { asset: "usdt", rail: "bep20", jurisdiction: "FR" })).not.toThrow();
  });

  it("names every reason but the older codes' in PAYIN_NOT_READY's message (a pair the platform does not serve cannot reach it, but would be named)", () => {
    expect(() => authorise({ ...allowed, providerConnectedInJurisdiction: false }, { asset: "usdt", rail: "erc20", jurisdiction: "DE" })).toThrow(
      "the merchant is not ready for usdt on erc20 in DE: asset_not_configured, provider_not_ready",
    );
  });

  it("names the capability a pay-in needs", () => {
    expect(PAYIN_CAPABILITY).toBe("crypto.payin");
  });
});
