import { describe, expect, it } from "vitest";
import { DomainError } from "@payin/errors";
import { charLength } from "@payin/http/text";
import { payableTermsOf, railsFromEnv } from "@payin/rails";
import { authorise, type PayinContext } from "./create-pay-in-intent.js";
import {
  checkNotExpired,
  checkPayable,
  checkSamePayload,
  intentNotFound,
  keyInUse,
  PAY_IN_STATUSES,
  validateCreate,
  type CreateRequest,
} from "./pay-in-intent.js";

const base: CreateRequest = {
  merchantUuid: "01a1fe6a-0000-7000-8000-000000000001",
  idempotencyKey: "k-1",
  asset: "usdt",
  amount: "10.50",
  jurisdiction: "DE",
  expiresAt: new Date("2030-01-01T00:00:00Z"),
  reference: "order-1",
};

/** The reason and message of the DomainError `fn` throws; undefined when it throws none. */
function refusal(fn: () => unknown): { reason: string; message: string } | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return { reason: error.reason, message: error.message };
    throw error;
  }
  return undefined;
}

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof DomainError) return error.reason;
    throw error;
  }
  return undefined;
}

describe("validateCreate", () => {
  it("routes usdt to bep20 and usdc to erc20 and canonicalises the amount", () => {
    expect(validateCreate(base)).toMatchObject({ rail: "bep20", amount: "10.5" });
    expect(validateCreate({ ...base, asset: "usdc", amount: "010.500" })).toMatchObject({ rail: "erc20", amount: "10.5" });
  });

  it("treats the same amount value and deadline instant as the same payload", () => {
    const a = validateCreate(base);
    const b = validateCreate({ ...base, amount: "10.5000", expiresAt: new Date("2030-01-01T01:00:00+01:00") });
    expect(b.requestHash).toBe(a.requestHash);
    expect(() => checkSamePayload(a.requestHash, b)).not.toThrow();
  });

  it.each([
    ["asset", { asset: "btc" }],
    ["asset case", { asset: "USDT" }],
    ["amount", { amount: "1e3" }],
    ["zero amount", { amount: "0.000" }],
    ["lower-case jurisdiction", { jurisdiction: "de" }],
    ["three-letter jurisdiction", { jurisdiction: "DEU" }],
    ["unassigned jurisdiction", { jurisdiction: "XX" }],
    ["missing expires_at", { expiresAt: undefined }],
    ["reference of 256 characters", { reference: "r".repeat(256) }],
    ["reference holding U+0000", { reference: "a\u0000b" }],
  ])("refuses a bad %s with VALIDATION_ERROR", (_name, patch) => {
    expect(reasonOf(() => validateCreate({ ...base, ...patch }))).toBe("VALIDATION_ERROR");
  });

  it("accepts a reference of exactly 255 characters, counted as characters", () => {
    expect(validateCreate({ ...base, reference: "€".repeat(255) }).reference).toHaveLength(255);
  });

  it.each([["", 0], ["k".repeat(65), 65]])("refuses an idempotency key of length %#", (key) => {
    expect(reasonOf(() => validateCreate({ ...base, idempotencyKey: key as string }))).toBe("IDEMPOTENCY_KEY_INVALID");
  });

  it.each([
    ["0 characters", ""],
    ["65 characters", "k".repeat(65)],
    ["65 astral characters", "😀".repeat(65)],
  ])("refuses an idempotency key of %s, saying how long one may be", (_name, key) => {
    expect(refusal(() => validateCreate({ ...base, idempotencyKey: key }))).toEqual({
      reason: "IDEMPOTENCY_KEY_INVALID",
      message: "Idempotency-Key must be 1 to 64 characters",
    });
  });

  it.each([
    ["1 character", "k"],
    ["64 characters", "k".repeat(64)],
    ["64 astral characters (128 UTF-16 units)", "😀".repeat(64)],
  ])("accepts an idempotency key of %s, and keeps it as it is", (_name, key) => {
    expect(validateCreate({ ...base, idempotencyKey: key }).idempotencyKey).toBe(key);
  });

  it("refuses an idempotency key holding U+0000", () => {
    expect(refusal(() => validateCreate({ ...base, idempotencyKey: "k\u0000" }))).toEqual({
      reason: "IDEMPOTENCY_KEY_INVALID",
      message: "Idempotency-Key must not contain the character U+0000",
    });
  });

  // Clients read these messages: each names the field and the rule it broke.
  it.each([
    [{ asset: "btc" }, "asset must be one of: usdt, usdc"],
    [{ amount: "1e3" }, "amount must be a decimal string like \"10.50\": digits, optionally one '.' and more digits"],
    [{ amount: "0.1234567" }, "amount must have at most 6 decimal places"],
    [{ amount: "0" }, "amount must be greater than 0"],
    [{ amount: "1000000001" }, "amount must be at most 1000000000"],
    [{ jurisdiction: "de" }, "jurisdiction must be exactly 2 upper-case letters (ISO 3166-1 alpha-2)"],
    [{ jurisdiction: "DEU" }, "jurisdiction must be exactly 2 upper-case letters (ISO 3166-1 alpha-2)"],
    [{ jurisdiction: "xDE" }, "jurisdiction must be exactly 2 upper-case letters (ISO 3166-1 alpha-2)"],
    [{ jurisdiction: "" }, "jurisdiction must be exactly 2 upper-case letters (ISO 3166-1 alpha-2)"],
    [{ jurisdiction: "XX" }, "jurisdiction must be an assigned ISO 3166-1 alpha-2 country code"],
    [{ expiresAt: undefined }, "expires_at is required"],
    [{ expiresAt: new Date("not a date") }, "expires_at is required"],
    [{ reference: "r".repeat(256) }, "reference must be at most 255 characters"],
    [{ reference: "a\u0000b" }, "reference must not contain the character U+0000"],
  ] as [Partial<CreateRequest>, string][])("refuses %j: %s", (patch, message) => {
    expect(refusal(() => validateCreate({ ...base, ...patch }))).toEqual({ reason: "VALIDATION_ERROR", message });
  });

  it("returns the canonical request, routed, with the reference as given", () => {
    const { requestHash, ...rest } = validateCreate(base);
    expect(rest).toEqual({
      merchantUuid: base.merchantUuid,
      idempotencyKey: "k-1",
      asset: "usdt",
      rail: "bep20",
      amount: "10.5",
      jurisdiction: "DE",
      expiresAt: new Date("2030-01-01T00:00:00Z"),
      reference: "order-1",
    });
    expect(requestHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("takes a missing reference as null, which is not the empty reference", () => {
    const none = validateCreate({ ...base, reference: undefined });
    expect(none.reference).toBeNull();
    const empty = validateCreate({ ...base, reference: "" });
    expect(empty.reference).toBe("");
    expect(empty.requestHash).not.toBe(none.requestHash);
  });

  // The fingerprint is stored with every idempotency key: changing how it is
  // computed would make every stored key's replay look like another payload.
  // Expected values: sha256sum over the JSON text, computed outside this code.
  it("fingerprints the payload as SHA-256 hex of its canonical JSON, a stored value that must not change", () => {
    // printf '%s' '["usdt","10.5","DE",1893456000000,"order-1"]' | sha256sum
    expect(validateCreate(base).requestHash).toBe("6f6b21ad4e8471cfba0bdd8598784efcbbed6f18189f8feb38e538b617b2667a");
    // printf '%s' '["usdc","0.000001","BR",1893456000000,null]' | sha256sum
    expect(
      validateCreate({ ...base, asset: "usdc", amount: "0.0000010", jurisdiction: "BR", reference: undefined }).requestHash,
    ).toBe("c82b6869f4d92c7e1330999b262ce0b8df7284fcdd3c90e6d760e6b26dc5c8da");
  });

  it.each([
    ["asset", { asset: "usdc" }],
    ["amount", { amount: "10.51" }],
    ["jurisdiction", { jurisdiction: "FR" }],
    ["deadline", { expiresAt: new Date("2030-01-01T00:00:00.001Z") }],
    ["reference", { reference: "order-2" }],
    ["missing reference", { reference: undefined }],
  ])("fingerprints another %s as another payload", (_name, patch) => {
    expect(validateCreate({ ...base, ...patch }).requestHash).not.toBe(validateCreate(base).requestHash);
  });

  it("does not fingerprint the merchant or the key: the same payload under another key is the same payload", () => {
    const other = validateCreate({ ...base, idempotencyKey: "k-2", merchantUuid: "01a1fe6a-0000-7000-8000-000000000002" });
    expect(other.requestHash).toBe(validateCreate(base).requestHash);
  });

  it("refuses another payload under the same key", () => {
    const a = validateCreate(base);
    const b = validateCreate({ ...base, amount: "11" });
    expect(refusal(() => checkSamePayload(a.requestHash, b))).toEqual({
      reason: "IDEMPOTENCY_KEY_REUSED",
      message: "the idempotency key was reused with a different payload; use a new Idempotency-Key for a new payment",
    });
  });

  it("refuses a deadline that is not in the future", () => {
    const req = validateCreate(base);
    expect(refusal(() => checkNotExpired(req, new Date("2030-01-01T00:00:00Z")))).toEqual({
      reason: "VALIDATION_ERROR",
      message: "expires_at must lie in the future",
    });
    expect(reasonOf(() => checkNotExpired(req, new Date("2030-01-01T00:00:00.001Z")))).toBe("VALIDATION_ERROR");
    expect(reasonOf(() => checkNotExpired(req, new Date("2029-12-31T23:59:59.999Z")))).toBeUndefined();
  });
});

describe("checkPayable", () => {
  const mainnet = payableTermsOf(railsFromEnv({}));
  const custom = payableTermsOf(railsFromEnv({
    BEP20_DUST_THRESHOLD: "0.5",
    ERC20_TOKENS: "usdc:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48:2",
  }));

  it("takes an amount from the rail's minimum up, in whole units of its token", () => {
    for (const amount of ["0.001", "0.0011", "10.5", "1000000000"]) {
      expect(refusal(() => checkPayable(amount, { rail: "bep20" }, mainnet)), amount).toBeUndefined();
      expect(refusal(() => checkPayable(amount, { rail: "erc20" }, mainnet)), amount).toBeUndefined();
    }
    expect(refusal(() => checkPayable("0.5", { rail: "bep20" }, custom))).toBeUndefined();
    expect(refusal(() => checkPayable("0.01", { rail: "erc20" }, custom))).toBeUndefined();
  });

  it("refuses (VALIDATION_ERROR) an amount below the rail's dust threshold, naming the minimum", () => {
    expect(refusal(() => checkPayable("0.0001", { rail: "bep20" }, mainnet))).toEqual({
      reason: "VALIDATION_ERROR",
      message: "amount must be at least 0.001 USDT on BEP20 (smaller transfers are dust and never count)",
    });
    expect(refusal(() => checkPayable("0.0005", { rail: "erc20" }, mainnet))).toEqual({
      reason: "VALIDATION_ERROR",
      message: "amount must be at least 0.001 USDC on ERC20 (smaller transfers are dust and never count)",
    });
    expect(refusal(() => checkPayable("0.499999", { rail: "bep20" }, custom))?.message).toBe(
      "amount must be at least 0.5 USDT on BEP20 (smaller transfers are dust and never count)",
    );
  });

  it("refuses (VALIDATION_ERROR) an amount finer than the token's smallest unit", () => {
    expect(refusal(() => checkPayable("1.001", { rail: "erc20" }, custom))).toEqual({
      reason: "VALIDATION_ERROR",
      message: "amount must be a whole multiple of 0.01 USDC on ERC20, the token's smallest unit (at least 0.01)",
    });
  });

  it("reads the pair's rail's terms, not another's", () => {
    expect(refusal(() => checkPayable("0.1", { rail: "erc20" }, custom))).toBeUndefined();
    expect(refusal(() => checkPayable("0.1", { rail: "bep20" }, custom))?.reason).toBe("VALIDATION_ERROR");
  });
});

describe("the errors clients see", () => {
  it("answers a key in flight with IDEMPOTENCY_KEY_IN_USE, telling the client to retry the same request", () => {
    expect(keyInUse()).toBeInstanceOf(DomainError);
    expect(refusal(() => { throw keyInUse(); })).toEqual({
      reason: "IDEMPOTENCY_KEY_IN_USE",
      message: "a request with this Idempotency-Key is still in progress; retry later with the same key and body",
    });
  });

  it("answers a missing intent with PAY_IN_INTENT_NOT_FOUND", () => {
    expect(refusal(() => { throw intentNotFound(); })).toEqual({ reason: "PAY_IN_INTENT_NOT_FOUND", message: "pay-in intent not found" });
  });
});

describe("charLength", () => {
  it("counts code points, not UTF-16 units", () => {
    expect(["", "a", "€", "😀", "a😀b", "😀".repeat(3)].map(charLength)).toEqual([0, 1, 1, 1, 3, 3]);
  });
});

describe("PAY_IN_STATUSES", () => {
  it("lists the statuses of an intent in the order it goes through them", () => {
    expect(PAY_IN_STATUSES).toEqual(["created", "awaiting_payment", "paid"]);
  });
});

describe("authorise", () => {
  const allowed: PayinContext = { status: "active", ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "non_custodial", providerConnected: true, providerConnectedInJurisdiction: true };
  const pair = { asset: "usdc", rail: "erc20", jurisdiction: "DE" };
  it.each([
    ["a missing merchant", null, "MERCHANT_NOT_ACTIVE"],
    ["a suspended merchant, before any rule", { ...allowed, status: "suspended", ruleEffect: null }, "MERCHANT_NOT_ACTIVE"],
    ["no rule for the jurisdiction", { ...allowed, ruleEffect: null }, "PAYIN_NOT_ALLOWED"],
    ["a denying rule", { ...allowed, ruleEffect: "deny" }, "PAYIN_NOT_ALLOWED"],
    ["no payin policy", { ...allowed, payinPolicyEffect: null }, "PAYIN_NOT_ALLOWED"],
    ["a denying payin policy", { ...allowed, payinPolicyEffect: "deny" }, "PAYIN_NOT_ALLOWED"],
    ["no operating profile", { ...allowed, operatingMode: null }, "OPERATING_PROFILE_MISSING"],
    ["no provider bound for crypto.payin in the jurisdiction with a connection to it", { ...allowed, providerConnectedInJurisdiction: false }, "PAYIN_NOT_READY"],
  ] as const)("refuses %s", (_name, context, reason) => {
    expect(reasonOf(() => authorise(context as PayinContext | null, pair))).toBe(reason);
  });

  it("accepts an active merchant with an allowing rule and policy, a profile and a connected provider", () => {
    expect(reasonOf(() => authorise(allowed, pair))).toBeUndefined();
  });
});
