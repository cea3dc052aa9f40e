import { describe, expect, it } from "vitest";
import { DomainError } from "@payin/errors";
import { authorise, type PayinContext } from "./create-pay-in-intent.js";
import { checkNotExpired, checkSamePayload, validateCreate, type CreateRequest } from "./pay-in-intent.js";

const base: CreateRequest = {
  merchantUuid: "01a1fe6a-0000-7000-8000-000000000001",
  idempotencyKey: "k-1",
  asset: "usdt",
  amount: "10.50",
  jurisdiction: "DE",
  expiresAt: new Date("2030-01-01T00:00:00Z"),
  reference: "order-1",
};

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

  it("refuses an idempotency key holding U+0000", () => {
    expect(reasonOf(() => validateCreate({ ...base, idempotencyKey: "k\u0000" }))).toBe("IDEMPOTENCY_KEY_INVALID");
  });

  it("refuses another payload under the same key", () => {
    const a = validateCreate(base);
    const b = validateCreate({ ...base, amount: "11" });
    expect(reasonOf(() => checkSamePayload(a.requestHash, b))).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it("refuses a deadline that is not in the future", () => {
    const req = validateCreate(base);
    expect(reasonOf(() => checkNotExpired(req, new Date("2030-01-01T00:00:00Z")))).toBe("VALIDATION_ERROR");
    expect(reasonOf(() => checkNotExpired(req, new Date("2029-12-31T23:59:59Z")))).toBeUndefined();
  });
});

describe("authorise", () => {
  const allowed: PayinContext = { status: "active", ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "non_custodial" };
  it.each([
    ["a missing merchant", null, "MERCHANT_NOT_ACTIVE"],
    ["a suspended merchant, before any rule", { ...allowed, status: "suspended", ruleEffect: null }, "MERCHANT_NOT_ACTIVE"],
    ["no rule for the jurisdiction", { ...allowed, ruleEffect: null }, "PAYIN_NOT_ALLOWED"],
    ["a denying rule", { ...allowed, ruleEffect: "deny" }, "PAYIN_NOT_ALLOWED"],
    ["no payin policy", { ...allowed, payinPolicyEffect: null }, "PAYIN_NOT_ALLOWED"],
    ["a denying payin policy", { ...allowed, payinPolicyEffect: "deny" }, "PAYIN_NOT_ALLOWED"],
    ["no operating profile", { ...allowed, operatingMode: null }, "OPERATING_PROFILE_MISSING"],
  ] as const)("refuses %s", (_name, context, reason) => {
    expect(reasonOf(() => authorise(context as PayinContext | null))).toBe(reason);
  });

  it("accepts an active merchant with an allowing rule and policy and a profile", () => {
    expect(reasonOf(() => authorise(allowed))).toBeUndefined();
  });
});
