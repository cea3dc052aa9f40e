import { describe, expect, it } from "vitest";
import { DomainError } from "@payin/errors";
import {
  chosenPair,
  isTokenFormat,
  newToken,
  presentationState,
  sessionState,
  tokenHash,
  validateCreateCheckout,
  type CheckoutPair,
  type CreateCheckoutRequest,
  type PresentationInput,
} from "./checkout-session.js";

const USDT: CheckoutPair = { asset: "usdt", rail: "bep20" };
const USDC: CheckoutPair = { asset: "usdc", rail: "erc20" };
const now = new Date("2026-11-27T12:00:00.000Z");
const at = (ms: number) => new Date(now.getTime() + ms);

function input(over: Partial<PresentationInput> = {}): PresentationInput {
  return { session: { state: "open", pairs: [USDT, USDC] }, intent: null, now, merchantActive: true, pairReady: () => true, ...over };
}

describe("presentationState", () => {
  it("offers a choice while open with several Ready pairs, and a start with one", () => {
    expect(presentationState(input())).toBe("select_method");
    expect(presentationState(input({ session: { state: "open", pairs: [USDC] } }))).toBe("ready_to_start");
    // Two allowed, one no longer Ready: only the Ready one is offered.
    expect(presentationState(input({ pairReady: (p) => p.asset === "usdt" }))).toBe("ready_to_start");
  });

  it("is unavailable before a start when disabled, the merchant is not active or no allowed pair is Ready", () => {
    expect(presentationState(input({ session: { state: "disabled", pairs: [USDT] } }))).toBe("unavailable");
    expect(presentationState(input({ merchantActive: false }))).toBe("unavailable");
    expect(presentationState(input({ pairReady: () => false }))).toBe("unavailable");
  });

  it("awaits payment once started, up to and including the deadline instant", () => {
    const started = { state: "started" as const, pairs: [USDT] };
    expect(presentationState(input({ session: started, intent: { status: "created", expiresAt: at(60_000) } }))).toBe("awaiting_payment");
    expect(presentationState(input({ session: started, intent: { status: "awaiting_payment", expiresAt: at(1) } }))).toBe("awaiting_payment");
    expect(presentationState(input({ session: started, intent: { status: "awaiting_payment", expiresAt: now } }))).toBe("awaiting_payment");
  });

  it("is expired_for_payment once the deadline has passed unpaid", () => {
    const started = { state: "started" as const, pairs: [USDT] };
    expect(presentationState(input({ session: started, intent: { status: "awaiting_payment", expiresAt: at(-1) } }))).toBe("expired_for_payment");
    expect(presentationState(input({ session: started, intent: { status: "created", expiresAt: at(-3_600_000) } }))).toBe("expired_for_payment");
  });

  it("is paid when the intent is paid, even read after the deadline", () => {
    const started = { state: "started" as const, pairs: [USDT] };
    expect(presentationState(input({ session: started, intent: { status: "paid", expiresAt: at(60_000) } }))).toBe("paid");
    expect(presentationState(input({ session: started, intent: { status: "paid", expiresAt: at(-86_400_000) } }))).toBe("paid");
  });

  it("follows the intent once it exists, whatever the merchant's status or readiness", () => {
    const started = { state: "started" as const, pairs: [USDT] };
    const intent = { status: "awaiting_payment" as const, expiresAt: at(60_000) };
    expect(presentationState(input({ session: started, intent, merchantActive: false, pairReady: () => false }))).toBe("awaiting_payment");
    expect(presentationState(input({ session: started, intent: { ...intent, status: "paid" }, merchantActive: false }))).toBe("paid");
  });
});

describe("sessionState", () => {
  const session = { checkoutUuid: "x", merchantUuid: "m", reference: null, description: null, amount: "1", pairs: [USDT], jurisdiction: "DE",
    intentUuid: "i", paymentWindowS: 1800, createdAt: now, updatedAt: now };
  it("reads paid from the intent, and the stored state otherwise", () => {
    expect(sessionState({ session: { ...session, state: "started" }, intentStatus: "paid", start: null })).toBe("paid");
    expect(sessionState({ session: { ...session, state: "started" }, intentStatus: "awaiting_payment", start: null })).toBe("started");
    expect(sessionState({ session: { ...session, state: "open", intentUuid: null }, intentStatus: null, start: null })).toBe("open");
    expect(sessionState({ session: { ...session, state: "disabled", intentUuid: null }, intentStatus: null, start: null })).toBe("disabled");
  });
});

describe("validateCreateCheckout", () => {
  const ok: CreateCheckoutRequest = {
    merchantUuid: "m", reference: "order-1", description: "Two tickets", amount: "010.500", jurisdiction: "DE", pairs: [USDT, USDC],
  };
  const refusal = (req: CreateCheckoutRequest) => {
    try {
      validateCreateCheckout(req);
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      return (error as DomainError).reason;
    }
    return "accepted";
  };

  it("keeps the canonical amount and the pairs in order", () => {
    expect(validateCreateCheckout(ok)).toEqual({ ...ok, amount: "10.5" });
    expect(validateCreateCheckout({ ...ok, reference: undefined, description: undefined })).toMatchObject({ reference: null, description: null });
  });

  it.each([
    ["no pairs", { pairs: [] }],
    ["a pair routing does not serve", { pairs: [{ asset: "usdt", rail: "erc20" }] }],
    ["an unknown asset", { pairs: [{ asset: "doge", rail: "bep20" }] }],
    ["a pair twice", { pairs: [USDT, USDT] }],
    ["a zero amount", { amount: "0" }],
    ["an amount with a comma", { amount: "1,5" }],
    ["an amount in scientific notation", { amount: "1e3" }],
    ["seven decimals", { amount: "1.0000001" }],
    ["an amount over the bound", { amount: "1000000000.000001" }],
    ["a lower-case jurisdiction", { jurisdiction: "de" }],
    ["an unassigned jurisdiction", { jurisdiction: "XX" }],
    ["a long reference", { reference: "r".repeat(256) }],
    ["a long description", { description: "d".repeat(501) }],
    ["a NUL in the description", { description: "a\u0000b" }],
  ])("refuses %s with VALIDATION_ERROR", (_, over) => {
    expect(refusal({ ...ok, ...over } as CreateCheckoutRequest)).toBe("VALIDATION_ERROR");
  });

  it("accepts the limits", () => {
    expect(refusal({ ...ok, reference: "r".repeat(255), description: "d".repeat(500), amount: "1000000000" })).toBe("accepted");
  });
});

describe("chosenPair", () => {
  it("takes an allowed pair, or the only one when none is named", () => {
    expect(chosenPair({ pairs: [USDT, USDC] }, { asset: "usdc", rail: "erc20" })).toEqual(USDC);
    expect(chosenPair({ pairs: [USDC] }, undefined)).toEqual(USDC);
    expect(chosenPair({ pairs: [USDC] }, { asset: "", rail: "" })).toEqual(USDC);
  });

  it("refuses a pair the session does not allow, and none among several", () => {
    expect(() => chosenPair({ pairs: [USDC] }, USDT)).toThrow(/not offered/);
    expect(() => chosenPair({ pairs: [USDT, USDC] }, undefined)).toThrow(/choose one/);
  });
});

describe("tokens", () => {
  it("are 43 base64url characters of 32 random bytes, stored as their SHA-256", () => {
    const a = newToken();
    const b = newToken();
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.token, "base64url")).toHaveLength(32);
    expect(a.token).not.toBe(b.token);
    expect(a.tokenHash).toBe(tokenHash(a.token));
    expect(a.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(isTokenFormat(a.token)).toBe(true);
    expect(isTokenFormat(`${a.token}x`)).toBe(false);
    expect(isTokenFormat("../etc/passwd")).toBe(false);
  });
});
