import { describe, expect, it } from "vitest";
import { deadlinePassed, presentationState, readyPairs, type CheckoutPair, type PresentationInput } from "./presentation-state.js";

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

  it("is unavailable when read without its intent once the stored state is no longer open", () => {
    expect(presentationState(input({ session: { state: "started", pairs: [USDT] } }))).toBe("unavailable");
    expect(presentationState(input({ session: { state: "paid", pairs: [USDT] } }))).toBe("unavailable");
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
    expect(presentationState(input({ session: { state: "disabled", pairs: [USDT] }, intent }))).toBe("awaiting_payment");
  });
});

describe("deadlinePassed", () => {
  it("is false up to and including the deadline instant, true a millisecond after", () => {
    expect(deadlinePassed(now, at(-1))).toBe(false);
    expect(deadlinePassed(now, now)).toBe(false);
    expect(deadlinePassed(now, at(1))).toBe(true);
  });
});

describe("readyPairs", () => {
  it("keeps the Ready pairs in the merchant's order", () => {
    expect(readyPairs(input({ session: { state: "open", pairs: [USDC, USDT] } }))).toEqual([USDC, USDT]);
    expect(readyPairs(input({ pairReady: (p) => p.rail === "erc20" }))).toEqual([USDC]);
    expect(readyPairs(input({ pairReady: () => false }))).toEqual([]);
  });
});
