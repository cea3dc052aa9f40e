import { describe, expect, it } from "vitest";
import { TRANSFER_FLAGS } from "@payin/events";
import { completingTransfer, deadlineOutcome, flagOf, observationEvents, transferEvents, type TransferChange } from "./intent-events.js";
import type { IntentTerms, TransferEvidence } from "./settlement.js";

const DEADLINE = new Date("2030-01-01T00:00:00.000Z");
const IN_TIME = new Date("2029-12-31T23:00:00.000Z");
const LATE = new Date("2030-01-01T00:00:00.001Z");

/** 12.5 usdc on erc20 (6 decimals). */
const TERMS: IntentTerms = { asset: "usdc", rail: "erc20", expectedAmount: "12.5", expiresAt: DEADLINE };
const EXPECTED = 12_500_000n;

/** A settled, timely usdc transfer on erc20, changed by `over`; `id` tells transfers apart. */
function transfer(id: number, amount: bigint, over: Partial<TransferEvidence> = {}): TransferEvidence & { id: number } {
  return { id, rail: "erc20", asset: "usdc", decimals: 6, amount, blockTime: IN_TIME, state: "settled", dust: false, afterPaid: false, ...over };
}

const fresh = <T extends TransferEvidence>(t: T): TransferChange<T> => ({ transfer: t, previous: null });
const moved = <T extends TransferEvidence>(t: T, from: TransferEvidence["state"]): TransferChange<T> => ({ transfer: t, previous: { state: from } });

describe("flagOf", () => {
  it("is null for a transfer that counts, whatever its state", () => {
    for (const state of ["pending", "settled", "orphaned"] as const) expect(flagOf(TERMS, transfer(1, 1n, { state }))).toBeNull();
  });

  it("names each reason a transfer does not count", () => {
    expect(flagOf(TERMS, transfer(1, 1n, { blockTime: LATE }))).toBe("late");
    expect(flagOf(TERMS, transfer(1, 1n, { rail: "bep20" }))).toBe("wrong_network");
    expect(flagOf(TERMS, transfer(1, 1n, { asset: "usdt" }))).toBe("wrong_token");
    expect(flagOf(TERMS, transfer(1, 0n, { dust: true }))).toBe("dust");
    expect(flagOf(TERMS, transfer(1, 1n, { afterPaid: true }))).toBe("after_paid");
    // A block exactly at the deadline is in time.
    expect(flagOf(TERMS, transfer(1, 1n, { blockTime: DEADLINE }))).toBeNull();
  });

  it("names the first of several in the catalogue's order", () => {
    const all = { blockTime: LATE, rail: "bep20", asset: "usdt", dust: true, afterPaid: true } as const;
    expect(flagOf(TERMS, transfer(1, 0n, all))).toBe("late");
    expect(flagOf(TERMS, transfer(1, 0n, { ...all, blockTime: IN_TIME }))).toBe("wrong_network");
    expect(flagOf(TERMS, transfer(1, 0n, { ...all, blockTime: IN_TIME, rail: "erc20" }))).toBe("wrong_token");
    expect(flagOf(TERMS, transfer(1, 0n, { afterPaid: true, dust: true }))).toBe("dust");
    expect(TRANSFER_FLAGS).toEqual(["late", "wrong_network", "wrong_token", "dust", "after_paid"]);
  });
});

describe("transferEvents", () => {
  it("tells a counting transfer's first record by its state", () => {
    const pending = transfer(1, 1n, { state: "pending" });
    expect(transferEvents(TERMS, fresh(pending))).toEqual([{ type: "pay_in_intent.transfer_detected", transfer: pending }]);
    const settled = transfer(1, 1n);
    expect(transferEvents(TERMS, fresh(settled))).toEqual([{ type: "pay_in_intent.transfer_settled", transfer: settled }]);
    const orphaned = transfer(1, 1n, { state: "orphaned" });
    expect(transferEvents(TERMS, fresh(orphaned))).toEqual([{ type: "pay_in_intent.transfer_orphaned", transfer: orphaned }]);
  });

  it("tells a transfer that does not count once, flagged, at its first record", () => {
    const late = transfer(1, 1n, { blockTime: LATE, state: "pending" });
    expect(transferEvents(TERMS, fresh(late))).toEqual([{ type: "pay_in_intent.transfer_flagged", transfer: late, flag: "late" }]);
    const afterPaid = transfer(2, 1n, { afterPaid: true });
    expect(transferEvents(TERMS, fresh(afterPaid))).toEqual([{ type: "pay_in_intent.transfer_flagged", transfer: afterPaid, flag: "after_paid" }]);
  });

  it("tells each later change of state, of a flagged transfer too, but never a dust transfer's", () => {
    const settled = transfer(1, 1n);
    expect(transferEvents(TERMS, moved(settled, "pending"))).toEqual([{ type: "pay_in_intent.transfer_settled", transfer: settled }]);
    const orphaned = transfer(1, 1n, { state: "orphaned" });
    expect(transferEvents(TERMS, moved(orphaned, "settled"))).toEqual([{ type: "pay_in_intent.transfer_orphaned", transfer: orphaned }]);
    const back = transfer(1, 1n, { state: "pending" });
    expect(transferEvents(TERMS, moved(back, "orphaned"))).toEqual([{ type: "pay_in_intent.transfer_detected", transfer: back }]);
    const lateSettled = transfer(2, 1n, { blockTime: LATE });
    expect(transferEvents(TERMS, moved(lateSettled, "pending"))).toEqual([{ type: "pay_in_intent.transfer_settled", transfer: lateSettled }]);
    expect(transferEvents(TERMS, moved(transfer(3, 0n, { dust: true }), "pending"))).toEqual([]);
  });

  it("tells nothing when a new version left the state as it was (a new block only)", () => {
    for (const state of ["pending", "settled", "orphaned"] as const) expect(transferEvents(TERMS, moved(transfer(1, 1n, { state }), state))).toEqual([]);
  });
});

describe("completingTransfer", () => {
  it("is the settled transfer that brought what was received up to the expected amount", () => {
    const a = transfer(1, 5_000_000n);
    const b = transfer(2, 7_500_000n);
    const c = transfer(3, 1_000_000n);
    // Nothing before: a, then b reaches 12.5.
    expect(completingTransfer(TERMS, { received: 13_500_000n, expected: EXPECTED }, [fresh(a), fresh(b), fresh(c)])?.id).toBe(2);
    // 6 received before: a alone reaches 11, b makes 18.5.
    expect(completingTransfer(TERMS, { received: 19_500_000n, expected: EXPECTED }, [fresh(a), fresh(b), fresh(c)])?.id).toBe(2);
    // 8 received before: a reaches 13.
    expect(completingTransfer(TERMS, { received: 21_500_000n, expected: EXPECTED }, [fresh(a), fresh(b), fresh(c)])?.id).toBe(1);
    // Exactly the expected amount completes it.
    expect(completingTransfer(TERMS, { received: EXPECTED, expected: EXPECTED }, [fresh(transfer(4, EXPECTED))])?.id).toBe(4);
  });

  it("leaves out what this change did not settle or what does not count", () => {
    const settledBefore = transfer(1, EXPECTED);
    const pending = transfer(2, EXPECTED, { state: "pending" });
    const late = transfer(3, EXPECTED, { blockTime: LATE });
    const counting = transfer(4, 1n);
    const changes = [moved(settledBefore, "settled"), fresh(pending), fresh(late), moved(counting, "pending")];
    expect(completingTransfer(TERMS, { received: EXPECTED + 1n, expected: EXPECTED }, changes)?.id).toBe(4);
    expect(completingTransfer(TERMS, { received: EXPECTED, expected: EXPECTED }, [moved(settledBefore, "settled"), fresh(pending), fresh(late)])).toBeNull();
  });

  it("is the last one settled when their amounts do not reach it (received fell meanwhile)", () => {
    const [a, b, c] = [transfer(1, 1n), transfer(2, 2n), transfer(3, 3n)];
    expect(completingTransfer(TERMS, { received: 6n, expected: EXPECTED }, [fresh(a), fresh(b), fresh(c)])?.id).toBe(3);
  });
});

describe("observationEvents", () => {
  const decision = { received: 0n, expected: EXPECTED };

  it("tells awaiting payment when the intent leaves created, then each transfer's change in order", () => {
    const a = transfer(1, 1n, { state: "pending" });
    const b = transfer(2, 0n, { dust: true });
    expect(observationEvents({ terms: TERMS, before: "created", after: "awaiting_payment", changes: [fresh(a), fresh(b)], decision })).toEqual([
      { type: "pay_in_intent.awaiting_payment" },
      { type: "pay_in_intent.transfer_detected", transfer: a },
      { type: "pay_in_intent.transfer_flagged", transfer: b, flag: "dust" },
    ]);
    expect(observationEvents({ terms: TERMS, before: "created", after: "created", changes: [], decision })).toEqual([]);
    expect(observationEvents({ terms: TERMS, before: "awaiting_payment", after: "awaiting_payment", changes: [], decision })).toEqual([]);
  });

  it("tells paid last, with the transfer that completed it, when the intent becomes paid", () => {
    const a = transfer(1, EXPECTED);
    expect(observationEvents({ terms: TERMS, before: "created", after: "paid", changes: [fresh(a)], decision: { received: EXPECTED, expected: EXPECTED } })).toEqual([
      { type: "pay_in_intent.awaiting_payment" },
      { type: "pay_in_intent.transfer_settled", transfer: a },
      { type: "pay_in_intent.paid", transfer: a },
    ]);
    expect(
      observationEvents({ terms: TERMS, before: "awaiting_payment", after: "paid", changes: [moved(a, "pending")], decision: { received: EXPECTED, expected: EXPECTED } }),
    ).toEqual([
      { type: "pay_in_intent.transfer_settled", transfer: a },
      { type: "pay_in_intent.paid", transfer: a },
    ]);
  });

  it("never tells paid again for an intent already paid", () => {
    const late = transfer(2, 1n, { afterPaid: true });
    expect(observationEvents({ terms: TERMS, before: "paid", after: "paid", changes: [fresh(late)], decision })).toEqual([
      { type: "pay_in_intent.transfer_flagged", transfer: late, flag: "after_paid" },
    ]);
  });
});

describe("deadlineOutcome", () => {
  it("is unpaid when nothing counting settled", () => {
    expect(deadlineOutcome(TERMS, [])).toEqual({ outcome: "unpaid", receivedAmount: "0" });
    const nothingSettled = [transfer(1, EXPECTED, { state: "pending" }), transfer(2, EXPECTED, { state: "orphaned" }), transfer(3, EXPECTED, { asset: "usdt", decimals: 18 })];
    expect(deadlineOutcome(TERMS, nothingSettled)).toEqual({ outcome: "unpaid", receivedAmount: "0" });
  });

  it("is underpaid with what settled, in token units", () => {
    expect(deadlineOutcome(TERMS, [transfer(1, 2_500_000n), transfer(2, 1n, { state: "pending" })])).toEqual({ outcome: "underpaid", receivedAmount: "2.5" });
    expect(deadlineOutcome(TERMS, [transfer(1, 1n)])).toEqual({ outcome: "underpaid", receivedAmount: "0.000001" });
  });
});
