import { describe, expect, it } from "vitest";
import { counts, countsNow, decidePayment, flagsOf, type IntentTerms, type TransferEvidence } from "./settlement.js";

const DEADLINE = new Date("2030-01-01T00:00:00.000Z");
const BEFORE = new Date("2029-12-31T23:00:00.000Z");

/** usdt routes to bep20 (18 decimals); usdc to erc20 (6 decimals). */
const USDT: IntentTerms = { asset: "usdt", rail: "bep20", expectedAmount: "10.5", expiresAt: DEADLINE };
const USDC: IntentTerms = { asset: "usdc", rail: "erc20", expectedAmount: "12.5", expiresAt: DEADLINE };

/** 10.5 in usdt's base units on bep20. */
const USDT_EXPECTED = 10_500_000_000_000_000_000n;
/** 12.5 in usdc's base units on erc20. */
const USDC_EXPECTED = 12_500_000n;

/** A settled, timely, non-dust usdt transfer on bep20, changed by `over`. */
function usdt(amount: bigint, over: Partial<TransferEvidence> = {}): TransferEvidence {
  return { rail: "bep20", asset: "usdt", decimals: 18, amount, blockTime: BEFORE, state: "settled", dust: false, afterPaid: false, ...over };
}

function usdc(amount: bigint, over: Partial<TransferEvidence> = {}): TransferEvidence {
  return { rail: "erc20", asset: "usdc", decimals: 6, amount, blockTime: BEFORE, state: "settled", dust: false, afterPaid: false, ...over };
}

const NOTHING_COUNTED = { paid: false, expected: 0n, received: 0n, pending: 0n, afterPaid: 0n, decimals: null };

describe("flagsOf", () => {
  it("raises no flag for the intent's token on its rail, in time and above dust", () => {
    expect(flagsOf(USDT, usdt(1n))).toEqual({ late: false, wrongNetwork: false, wrongToken: false, dust: false, afterPaid: false });
    expect(counts(USDT, usdt(1n))).toBe(true);
  });

  it("judges lateness by the block time: 1 ms after the deadline is late, exactly at it is not", () => {
    const late = usdt(1n, { blockTime: new Date(DEADLINE.getTime() + 1) });
    expect(flagsOf(USDT, late)).toEqual({ late: true, wrongNetwork: false, wrongToken: false, dust: false, afterPaid: false });
    expect(counts(USDT, late)).toBe(false);
    const atDeadline = usdt(1n, { blockTime: new Date(DEADLINE.getTime()) });
    expect(flagsOf(USDT, atDeadline).late).toBe(false);
    expect(counts(USDT, atDeadline)).toBe(true);
  });

  it("flags the intent's token on another rail as wrong network", () => {
    const onErc20 = usdt(1n, { rail: "erc20", decimals: 6 });
    expect(flagsOf(USDT, onErc20)).toEqual({ late: false, wrongNetwork: true, wrongToken: false, dust: false, afterPaid: false });
    expect(counts(USDT, onErc20)).toBe(false);
  });

  it("flags another token on the intent's rail as wrong token", () => {
    const usdcOnBep20 = usdt(1n, { asset: "usdc" });
    expect(flagsOf(USDT, usdcOnBep20)).toEqual({ late: false, wrongNetwork: false, wrongToken: true, dust: false, afterPaid: false });
    expect(counts(USDT, usdcOnBep20)).toBe(false);
  });

  it("carries the observer's dust flag", () => {
    const dust = usdt(1n, { dust: true });
    expect(flagsOf(USDT, dust)).toEqual({ late: false, wrongNetwork: false, wrongToken: false, dust: true, afterPaid: false });
    expect(counts(USDT, dust)).toBe(false);
  });

  it("carries the after-paid flag: such a transfer never counts", () => {
    const again = usdt(USDT_EXPECTED, { afterPaid: true });
    expect(flagsOf(USDT, again)).toEqual({ late: false, wrongNetwork: false, wrongToken: false, dust: false, afterPaid: true });
    expect(counts(USDT, again)).toBe(false);
  });

  it("raises every flag that applies at once", () => {
    const all = usdc(1n, { blockTime: new Date(DEADLINE.getTime() + 60_000), dust: true, afterPaid: true });
    expect(flagsOf(USDT, all)).toEqual({ late: true, wrongNetwork: true, wrongToken: true, dust: true, afterPaid: true });
  });

  it("does not depend on the transfer's state", () => {
    for (const state of ["pending", "settled", "orphaned"] as const) {
      expect(flagsOf(USDT, usdt(1n, { state }))).toEqual({ late: false, wrongNetwork: false, wrongToken: false, dust: false, afterPaid: false });
      expect(counts(USDT, usdt(1n, { state }))).toBe(true);
    }
  });
});

describe("countsNow", () => {
  it("counts a transfer of a paying kind while it is pending or settled, never once orphaned", () => {
    expect(countsNow(USDT, usdt(1n, { state: "settled" }))).toBe(true);
    expect(countsNow(USDT, usdt(1n, { state: "pending" }))).toBe(true);
    expect(countsNow(USDT, usdt(1n, { state: "orphaned" }))).toBe(false);
  });

  it("never counts a transfer with a flag, whatever its state", () => {
    const flagged = [
      usdt(1n, { blockTime: new Date(DEADLINE.getTime() + 1) }),
      usdt(1n, { dust: true }),
      usdt(1n, { afterPaid: true }),
      usdt(1n, { rail: "erc20" }),
      usdc(1n, { rail: "bep20" }),
    ];
    for (const transfer of flagged) {
      for (const state of ["pending", "settled"] as const) expect(countsNow(USDT, { ...transfer, state })).toBe(false);
    }
  });

  it("is what decidePayment adds up: the received and pending amounts are the counting transfers'", () => {
    const evidence = [usdt(3n), usdt(4n, { state: "pending" }), usdt(5n, { state: "orphaned" }), usdt(6n, { dust: true }), usdc(7n)];
    const counted = evidence.filter((t) => countsNow(USDT, t));
    const decision = decidePayment(USDT, evidence);
    expect(decision.received).toBe(counted.filter((t) => t.state === "settled").reduce((sum, t) => sum + t.amount, 0n));
    expect(decision.pending).toBe(counted.filter((t) => t.state === "pending").reduce((sum, t) => sum + t.amount, 0n));
    expect([decision.received, decision.pending]).toEqual([3n, 4n]);
  });
});

describe("decidePayment", () => {
  it("is unpaid with nothing counted when there is no evidence", () => {
    expect(decidePayment(USDT, [])).toEqual(NOTHING_COUNTED);
  });

  it("pays on a settled transfer of exactly the expected amount, in the token's base units", () => {
    expect(decidePayment(USDT, [usdt(USDT_EXPECTED)])).toEqual({
      paid: true,
      expected: USDT_EXPECTED,
      received: USDT_EXPECTED,
      pending: 0n,
      afterPaid: 0n,
      decimals: 18,
    });
    expect(decidePayment(USDC, [usdc(USDC_EXPECTED)])).toEqual({
      paid: true,
      expected: USDC_EXPECTED,
      received: USDC_EXPECTED,
      pending: 0n,
      afterPaid: 0n,
      decimals: 6,
    });
  });

  it("does not pay on one base unit less than expected", () => {
    expect(decidePayment(USDT, [usdt(USDT_EXPECTED - 1n)])).toEqual({
      paid: false,
      expected: USDT_EXPECTED,
      received: USDT_EXPECTED - 1n,
      pending: 0n,
      afterPaid: 0n,
      decimals: 18,
    });
    expect(decidePayment(USDC, [usdc(USDC_EXPECTED - 1n)]).paid).toBe(false);
  });

  it("leaves a partial payment unpaid, with what was received", () => {
    expect(decidePayment(USDC, [usdc(5_000_000n)])).toEqual({ paid: false, expected: USDC_EXPECTED, received: 5_000_000n, pending: 0n, afterPaid: 0n, decimals: 6 });
  });

  it("pays on two partial transfers that add up to the expected amount", () => {
    const decision = decidePayment(USDC, [usdc(5_000_000n), usdc(7_500_000n)]);
    expect(decision).toEqual({ paid: true, expected: USDC_EXPECTED, received: USDC_EXPECTED, pending: 0n, afterPaid: 0n, decimals: 6 });
    expect(decidePayment(USDC, [usdc(5_000_000n), usdc(7_499_999n)]).paid).toBe(false);
  });

  it("pays on more than the expected amount, and shows all of it as received", () => {
    expect(decidePayment(USDT, [usdt(USDT_EXPECTED * 3n)])).toEqual({
      paid: true,
      expected: USDT_EXPECTED,
      received: USDT_EXPECTED * 3n,
      pending: 0n,
      afterPaid: 0n,
      decimals: 18,
    });
  });

  it("never pays on a late transfer (1 ms after the deadline), and counts one exactly at the deadline", () => {
    const late = usdt(USDT_EXPECTED, { blockTime: new Date(DEADLINE.getTime() + 1) });
    expect(decidePayment(USDT, [late])).toEqual(NOTHING_COUNTED);
    const atDeadline = usdt(USDT_EXPECTED, { blockTime: new Date(DEADLINE.getTime()) });
    expect(decidePayment(USDT, [atDeadline]).paid).toBe(true);
    // A timely partial and a late rest do not add up.
    expect(decidePayment(USDT, [usdt(USDT_EXPECTED / 2n), usdt(USDT_EXPECTED, { blockTime: new Date(DEADLINE.getTime() + 1) })])).toEqual({
      paid: false,
      expected: USDT_EXPECTED,
      received: USDT_EXPECTED / 2n,
      pending: 0n,
      afterPaid: 0n,
      decimals: 18,
    });
  });

  it("never pays on another token, another rail or dust, whatever the amount", () => {
    const wrongToken = usdt(USDT_EXPECTED, { asset: "usdc" });
    const wrongNetwork = usdt(USDT_EXPECTED, { rail: "erc20" });
    const dust = usdt(USDT_EXPECTED, { dust: true });
    for (const transfer of [wrongToken, wrongNetwork, dust]) expect(decidePayment(USDT, [transfer])).toEqual(NOTHING_COUNTED);
    expect(decidePayment(USDT, [wrongToken, wrongNetwork, dust])).toEqual(NOTHING_COUNTED);
  });

  it("never pays on a pending transfer: shows it as pending", () => {
    expect(decidePayment(USDT, [usdt(USDT_EXPECTED, { state: "pending" })])).toEqual({
      paid: false,
      expected: USDT_EXPECTED,
      received: 0n,
      pending: USDT_EXPECTED,
      afterPaid: 0n,
      decimals: 18,
    });
  });

  it("keeps settled and pending amounts apart, and pays once the settled ones reach the expected amount", () => {
    const evidence = [usdc(5_000_000n), usdc(7_500_000n, { state: "pending" }), usdc(1_000_000n, { state: "pending" })];
    expect(decidePayment(USDC, evidence)).toEqual({ paid: false, expected: USDC_EXPECTED, received: 5_000_000n, pending: 8_500_000n, afterPaid: 0n, decimals: 6 });
    expect(decidePayment(USDC, [usdc(USDC_EXPECTED), usdc(1n, { state: "pending" })])).toEqual({
      paid: true,
      expected: USDC_EXPECTED,
      received: USDC_EXPECTED,
      pending: 1n,
      afterPaid: 0n,
      decimals: 6,
    });
  });

  it("counts an orphaned transfer neither as received nor as pending", () => {
    expect(decidePayment(USDT, [usdt(USDT_EXPECTED, { state: "orphaned" })])).toEqual(NOTHING_COUNTED);
    expect(decidePayment(USDC, [usdc(USDC_EXPECTED, { state: "orphaned" }), usdc(1_000_000n)])).toEqual({
      paid: false,
      expected: USDC_EXPECTED,
      received: 1_000_000n,
      pending: 0n,
      afterPaid: 0n,
      decimals: 6,
    });
  });

  it("counts a transfer settled again after it was orphaned (re-included in a later block)", () => {
    const reincluded = usdc(USDC_EXPECTED, { blockTime: new Date(BEFORE.getTime() + 30_000) });
    expect(decidePayment(USDC, [reincluded]).paid).toBe(true);
    // Re-included under another log index, its orphaned first copy stays beside it as evidence and adds nothing.
    expect(decidePayment(USDC, [usdc(USDC_EXPECTED, { state: "orphaned" }), reincluded])).toMatchObject({ paid: true, received: USDC_EXPECTED });
  });

  it("refuses counting transfers of the intent's token that report different decimals", () => {
    expect(() => decidePayment(USDT, [usdt(1n), usdt(1n, { decimals: 6 })])).toThrow(/different decimals/);
    expect(() => decidePayment(USDT, [usdt(1n, { state: "pending" }), usdt(1n, { decimals: 6 })])).toThrow(/different decimals/);
  });

  it("ignores the decimals of transfers that do not count", () => {
    // Another token, another rail, late, dust or orphaned: their decimals are not the intent token's.
    const others = [
      usdt(1n, { asset: "usdc", decimals: 6 }),
      usdt(1n, { rail: "erc20", decimals: 6 }),
      usdt(1n, { decimals: 6, blockTime: new Date(DEADLINE.getTime() + 1) }),
      usdt(1n, { decimals: 6, dust: true }),
      usdt(1n, { decimals: 6, state: "orphaned" }),
    ];
    expect(decidePayment(USDT, [...others, usdt(USDT_EXPECTED)])).toEqual({
      paid: true,
      expected: USDT_EXPECTED,
      received: USDT_EXPECTED,
      pending: 0n,
      afterPaid: 0n,
      decimals: 18,
    });
    expect(decidePayment(USDT, [usdt(USDT_EXPECTED), ...others]).decimals).toBe(18);
  });

  describe("after paid", () => {
    const paidBy = usdc(USDC_EXPECTED);

    it("counts a settled transfer recorded after paid apart, as the amount to give back, never as received", () => {
      expect(decidePayment(USDC, [paidBy, usdc(USDC_EXPECTED, { afterPaid: true })])).toEqual({
        paid: true,
        expected: USDC_EXPECTED,
        received: USDC_EXPECTED,
        pending: 0n,
        afterPaid: USDC_EXPECTED,
        decimals: 6,
      });
    });

    it("adds up every settled after-paid transfer of the intent's token on its rail, late ones too", () => {
      const topUp = usdc(2_000_000n, { afterPaid: true });
      const lateTopUp = usdc(500_000n, { afterPaid: true, blockTime: new Date(DEADLINE.getTime() + 1) });
      expect(decidePayment(USDC, [paidBy, topUp, lateTopUp])).toMatchObject({ paid: true, received: USDC_EXPECTED, afterPaid: 2_500_000n });
    });

    it("gives back only what is settled: a pending one shows neither as pending nor as given back, an orphaned one never", () => {
      const seen = usdc(USDC_EXPECTED, { afterPaid: true, state: "pending" });
      const dropped = usdc(USDC_EXPECTED, { afterPaid: true, state: "orphaned" });
      expect(decidePayment(USDC, [paidBy, seen, dropped])).toMatchObject({ received: USDC_EXPECTED, pending: 0n, afterPaid: 0n });
    });

    it("leaves out of the amount to give back another token, another rail and dust: they are listed with their own flags", () => {
      const others = [
        usdc(USDC_EXPECTED, { afterPaid: true, asset: "usdt", decimals: 18 }),
        usdc(USDC_EXPECTED, { afterPaid: true, rail: "bep20", decimals: 18 }),
        usdc(USDC_EXPECTED, { afterPaid: true, dust: true }),
      ];
      expect(decidePayment(USDC, [paidBy, ...others])).toEqual({
        paid: true,
        expected: USDC_EXPECTED,
        received: USDC_EXPECTED,
        pending: 0n,
        afterPaid: 0n,
        decimals: 6,
      });
    });

    it("answers the after-paid amount in the token's decimals even when nothing else counts", () => {
      // A reorganisation may have dropped what paid it; paid is final, and what came after is still given back.
      expect(decidePayment(USDC, [usdc(USDC_EXPECTED, { state: "orphaned" }), usdc(1n, { afterPaid: true })])).toEqual({
        paid: false,
        expected: USDC_EXPECTED,
        received: 0n,
        pending: 0n,
        afterPaid: 1n,
        decimals: 6,
      });
    });

    it("refuses after-paid transfers of the intent's token that report other decimals than the counted ones", () => {
      expect(() => decidePayment(USDC, [paidBy, usdc(1n, { afterPaid: true, decimals: 18 })])).toThrow(/different decimals/);
    });
  });

  it("reads the expected amount in the decimals the transfers report", () => {
    // The smallest usdc amount is one base unit on a 6-decimal token.
    const tiny: IntentTerms = { ...USDC, expectedAmount: "0.000001" };
    expect(decidePayment(tiny, [usdc(1n)])).toEqual({ paid: true, expected: 1n, received: 1n, pending: 0n, afterPaid: 0n, decimals: 6 });
    expect(decidePayment(tiny, [usdc(0n)]).paid).toBe(false);
  });
});
