import { describe, expect, it } from "vitest";
import {
  amountDue,
  boundTransfers,
  evidenceMessages,
  noEvidence,
  PAYER_TRANSFER_LIMITS,
  paymentStatus,
  receiptEvidence,
  transferKind,
  transferReasons,
  unreadTransfers,
  type Evidence,
  type EvidenceContext,
  type EvidenceTransfer,
} from "./evidence.js";

const t0 = new Date("2026-11-27T12:00:00.000Z");
const later = (s: number) => new Date(t0.getTime() + s * 1000);

/** A transfer as payins answers it: unless `over` says, it counts as payins would have it (no flag, not orphaned). */
function transfer(over: Partial<EvidenceTransfer> = {}): EvidenceTransfer {
  const t = {
    asset: "usdt", rail: "bep20", txHash: "0xaa", blockTime: t0, amount: "25.5", state: "settled" as const,
    late: false, wrongNetwork: false, wrongToken: false, dust: false, afterPaid: false, vanished: false, ...over,
  };
  const flagged = t.late || t.wrongNetwork || t.wrongToken || t.dust || t.afterPaid || t.state === "orphaned";
  return { ...t, counts: over.counts ?? !flagged };
}

/** Evidence whose list holds every transfer unless `total` or `dustCount` say there are more. */
function evidence(over: Partial<Evidence> = {}): Evidence {
  const transfers = over.transfers ?? [];
  return {
    expectedAmount: "25.5", receivedAmount: "0", pendingAmount: "0", afterPaidAmount: "0",
    total: transfers.length, dustCount: transfers.filter((t) => t.dust).length, ...over, transfers,
  };
}

const awaiting: EvidenceContext = { asset: "usdt", rail: "bep20", merchantName: "Shop", state: "awaiting_payment" };
const expired: EvidenceContext = { ...awaiting, state: "expired_for_payment" };
const paid: EvidenceContext = { ...awaiting, state: "paid" };
const texts = (e: Evidence, c: EvidenceContext) => evidenceMessages(e, c).map((m) => `${m.kind}/${m.tone}: ${m.text}`);

describe("transferKind", () => {
  it("names the first reason a transfer does not count, or counts", () => {
    expect(transferKind(transfer())).toBe("counts");
    expect(transferKind(transfer({ state: "pending" }))).toBe("counts");
    expect(transferKind(transfer({ late: true }))).toBe("late");
    expect(transferKind(transfer({ dust: true, late: true }))).toBe("dust");
    expect(transferKind(transfer({ wrongToken: true, dust: true, late: true }))).toBe("wrong_token");
    expect(transferKind(transfer({ wrongNetwork: true, wrongToken: true }))).toBe("wrong_network");
    expect(transferKind(transfer({ state: "orphaned", wrongNetwork: true }))).toBe("dropped");
    expect(transferKind(transfer({ afterPaid: true }))).toBe("after_paid");
    expect(transferKind(transfer({ afterPaid: true, state: "pending" }))).toBe("after_paid");
    // After the payment, it usually is after the deadline too: that it came after the payment names it.
    expect(transferKind(transfer({ afterPaid: true, late: true }))).toBe("after_paid");
    expect(transferKind(transfer({ afterPaid: true, dust: true }))).toBe("dust");
    expect(transferKind(transfer({ afterPaid: true, wrongToken: true }))).toBe("wrong_token");
  });

  it("lists every reason, the naming one first", () => {
    expect(transferReasons(transfer())).toEqual([]);
    expect(transferReasons(transfer({ state: "orphaned", wrongNetwork: true, wrongToken: true, dust: true, afterPaid: true, late: true }))).toEqual([
      "dropped", "wrong_network", "wrong_token", "dust", "after_paid", "late",
    ]);
    expect(transferReasons(transfer({ late: true, afterPaid: true }))).toEqual(["after_paid", "late"]);
    expect(transferReasons(transfer({ state: "pending", late: true }))).toEqual(["late"]);
  });

  it("takes whether a transfer counts from payins, not from the flags", () => {
    // payins counts it: no reason is shown, whatever flag came with it.
    expect(transferKind(transfer({ late: true, counts: true }))).toBe("counts");
    expect(transferReasons(transfer({ late: true, counts: true }))).toEqual([]);
    // payins does not count it and no flag this page knows says why (a payins of another version).
    expect(transferKind(transfer({ counts: false }))).toBe("not_counted");
    expect(transferReasons(transfer({ counts: false }))).toEqual(["not_counted"]);
    expect(texts(evidence({ transfers: [transfer({ counts: false, amount: "2" })] }), awaiting)).toEqual([
      "not_counted/warn: A transfer of 2 USDT arrived that does not count towards this payment. Contact Shop about it.",
    ]);
    expect(receiptEvidence(evidence({ transfers: [transfer({ counts: false })] })).txHashes).toEqual([]);
  });
});

describe("boundTransfers", () => {
  const kinds = (...list: string[]) => list.map((kind, i) => ({ i, kind: kind as ReturnType<typeof transferKind> }));
  const bound = (items: { i: number; kind: ReturnType<typeof transferKind> }[], dust: number, total: number) => {
    const b = boundTransfers(items, (item) => item.kind, { dust, total });
    return { listed: b.listed.map((item) => item.i), moreDust: b.moreDust, more: b.more };
  };

  it("lists everything within the limits, in order", () => {
    expect(bound(kinds("late", "dust", "counts"), 1, 3)).toEqual({ listed: [0, 1, 2], moreDust: 0, more: 0 });
    expect(bound([], 1, 1)).toEqual({ listed: [], moreDust: 0, more: 0 });
  });

  it("lists at most the dust limit of dust, counting the rest, and keeps listing the others", () => {
    expect(bound(kinds("dust", "dust", "dust", "late", "dust"), 2, 10)).toEqual({ listed: [0, 1, 3], moreDust: 2, more: 0 });
    expect(bound(kinds("dust", "dust"), 0, 10)).toEqual({ listed: [], moreDust: 2, more: 0 });
  });

  it("lists at most the total, counting dust and others apart", () => {
    expect(bound(kinds("late", "wrong_token", "dust", "late", "dust", "counts"), 5, 2)).toEqual({ listed: [0, 1], moreDust: 2, more: 2 });
    expect(bound(kinds("dust", "late", "late"), 5, 2)).toEqual({ listed: [0, 1], moreDust: 0, more: 1 });
  });

  it("bounds three hundred zero-value transfers whatever their number", () => {
    const spam = Array.from({ length: 300 }, (_, i) => ({ i, kind: "dust" as const }));
    expect(bound(spam, 3, 10)).toEqual({ listed: [0, 1, 2], moreDust: 297, more: 0 });
  });
});

describe("evidenceMessages", () => {
  it("says nothing before anything arrived, or when exactly the amount was paid", () => {
    expect(noEvidence("25.5")).toEqual({ expectedAmount: "25.5", receivedAmount: "0", pendingAmount: "0", afterPaidAmount: "0", transfers: [], total: 0, dustCount: 0 });
    expect(evidenceMessages(noEvidence("25.5"), awaiting)).toEqual([]);
    expect(evidenceMessages(evidence({ receivedAmount: "25.5", transfers: [transfer()] }), paid)).toEqual([]);
  });

  it("tells of a transfer seen and waiting for confirmation", () => {
    expect(texts(evidence({ pendingAmount: "25.5", transfers: [transfer({ state: "pending" })] }), awaiting)).toEqual([
      "received/info: We have seen 25.5 USDT arrive. It counts once the network confirms it, which usually takes a few minutes. Do not send it again.",
    ]);
    // After the deadline a transfer mined in time may still settle.
    expect(evidenceMessages(evidence({ pendingAmount: "25.5" }), expired).map((m) => m.kind)).toEqual(["received"]);
    // Paid: a further pending transfer is not news of the payment.
    expect(evidenceMessages(evidence({ receivedAmount: "25.5", pendingAmount: "1" }), paid).map((m) => m.kind)).toEqual(["over"]);
  });

  it("asks for the rest of a partial payment before the deadline", () => {
    expect(texts(evidence({ receivedAmount: "10" }), awaiting)).toEqual([
      "partial/warn: So far 10 USDT of 25.5 USDT has arrived. Send the remaining 15.5 USDT to the same address before the deadline.",
    ]);
    // What is pending counts towards what has arrived.
    expect(texts(evidence({ receivedAmount: "10", pendingAmount: "5" }), awaiting)[1]).toBe(
      "partial/warn: So far 15 USDT of 25.5 USDT has arrived. Send the remaining 10.5 USDT to the same address before the deadline.",
    );
    expect(texts(evidence({ receivedAmount: "25.499999" }), awaiting)[0]).toContain("Send the remaining 0.000001 USDT");
  });

  it("says an incomplete payment is incomplete once the deadline passed, and not to send more", () => {
    expect(texts(evidence({ receivedAmount: "10" }), expired)).toEqual([
      "partial/bad: Only 10 USDT of the 25.5 USDT asked for arrived before the deadline, so this payment is incomplete. Do not send the rest now: contact Shop about what you sent.",
    ]);
  });

  it("tells of an over-payment and its extra amount", () => {
    expect(texts(evidence({ receivedAmount: "30" }), paid)).toEqual([
      "over/warn: 30 USDT arrived, 4.5 USDT more than the 25.5 USDT asked for. Contact Shop about the extra amount.",
    ]);
    expect(texts(evidence({ receivedAmount: "25.5", pendingAmount: "0.000000000000000001" }), awaiting)).toContain(
      "over/warn: 25.500000000000000001 USDT arrived, 0.000000000000000001 USDT more than the 25.5 USDT asked for. Contact Shop about the extra amount.",
    );
    expect(evidenceMessages(evidence({ receivedAmount: "25.5" }), awaiting)).toEqual([]);
  });

  it("explains each transfer that does not count, with its hash", () => {
    const transfers = [
      transfer({ txHash: "0x01", late: true, amount: "25.5" }),
      transfer({ txHash: "0x02", wrongToken: true, asset: "usdc", amount: "3" }),
      transfer({ txHash: "0x03", wrongNetwork: true, asset: "usdt", rail: "erc20", amount: "4" }),
      transfer({ txHash: "0x04", dust: true, amount: "0.0001" }),
      transfer({ txHash: "0x05", state: "orphaned", amount: "7" }),
      transfer({ txHash: "0x06" }),
    ];
    const messages = evidenceMessages(evidence({ transfers }), expired);
    expect(messages).toEqual([
      { kind: "late", tone: "bad", txHash: "0x01", text: "25.5 USDT arrived after the deadline. It does not count towards this payment. Contact Shop to get it back." },
      { kind: "wrong_token", tone: "bad", txHash: "0x02", text: "3 USDC arrived, but this payment is in USDT. It does not count towards this payment. Contact Shop to get it back." },
      {
        kind: "wrong_network", tone: "bad", txHash: "0x03",
        text: "4 USDT arrived on Ethereum (ERC20), but this payment is on BNB Smart Chain (BEP20). It does not count towards this payment. Contact Shop to get it back.",
      },
      { kind: "dust", tone: "info", txHash: "0x04", text: "A very small transfer of 0.0001 USDT arrived. It is too small to count towards this payment." },
      { kind: "dropped", tone: "warn", txHash: "0x05", text: "A transfer of 7 USDT that we saw earlier was dropped by the network and does not count. Check it in your wallet." },
    ]);
  });

  it("tells of a transfer that arrived after the payment was complete, and who gives it back", () => {
    const messages = evidenceMessages(evidence({ receivedAmount: "25.5", transfers: [transfer({ txHash: "0x01" }), transfer({ txHash: "0x02", amount: "25.5", afterPaid: true, late: true })] }), paid);
    expect(messages).toEqual([
      { kind: "after_paid", tone: "warn", txHash: "0x02", text: "A further 25.5 USDT arrived after this payment was complete. It does not count; contact Shop to get it back." },
    ]);
  });

  it("lists a few very small transfers and counts the rest, so spam cannot make the page long", () => {
    const spam = Array.from({ length: 300 }, (_, i) => transfer({ txHash: `0xd${i}`, amount: "0", dust: true }));
    const messages = evidenceMessages(evidence({ receivedAmount: "5", transfers: [...spam, transfer({ txHash: "0x05", amount: "5" })] }), awaiting);
    expect(messages.map((m) => [m.kind, m.txHash])).toEqual([["partial", null], ["dust", "0xd0"], ["dust", "0xd1"], ["dust", "0xd2"], ["dust", null]]);
    expect(messages.at(-1)!.text).toBe("And 297 more very small transfers that do not count.");
    expect(messages.at(-1)!.tone).toBe("info");
    const four = Array.from({ length: 4 }, (_, i) => transfer({ txHash: `0xd${i}`, dust: true }));
    expect(evidenceMessages(evidence({ transfers: four }), awaiting).at(-1)!.text).toBe("And 1 more very small transfer that does not count.");
    expect(evidenceMessages(evidence({ transfers: four.slice(0, 3) }), awaiting).map((m) => m.txHash)).toEqual(["0xd0", "0xd1", "0xd2"]);
  });

  it("counts the transfers beyond the list read: dust with dust, the others as not shown", () => {
    const read = Array.from({ length: 1000 }, (_, i) => transfer({ txHash: `0xd${i}`, amount: "0", dust: true }));
    const messages = evidenceMessages(evidence({ transfers: read, total: 1302, dustCount: 1300 }), awaiting);
    expect(messages.map((m) => [m.kind, m.tone, m.text]).slice(3)).toEqual([
      ["dust", "info", "And 1297 more very small transfers that do not count."],
      ["more", "info", "And 2 more transfers not shown here."],
    ]);
    expect(evidenceMessages(evidence({ transfers: [], total: 1, dustCount: 0 }), awaiting).map((m) => m.text)).toEqual(["And 1 more transfer not shown here."]);
  });

  it("lists at most ten transfers that do not count and counts the others", () => {
    expect(PAYER_TRANSFER_LIMITS).toEqual({ dust: 3, total: 10 });
    const late = (n: number) => Array.from({ length: n }, (_, i) => transfer({ txHash: `0x${i}`, late: true }));
    const messages = evidenceMessages(evidence({ transfers: late(12) }), expired);
    expect(messages).toHaveLength(11);
    expect(messages.slice(0, 10).map((m) => m.kind)).toEqual(Array(10).fill("late"));
    expect(messages[10]).toEqual({ kind: "more", tone: "warn", txHash: null, text: "And 2 more transfers that do not count towards this payment. Contact Shop about them." });
    expect(evidenceMessages(evidence({ transfers: late(11) }), expired).at(-1)!.text).toBe("And 1 more transfer that does not count towards this payment. Contact Shop about it.");
    expect(evidenceMessages(evidence({ transfers: late(10) }), expired).map((m) => m.kind)).not.toContain("more");
    // Transfers that count are never among the ten.
    const counting = Array.from({ length: 20 }, (_, i) => transfer({ txHash: `0xc${i}`, amount: "1" }));
    expect(evidenceMessages(evidence({ receivedAmount: "20", transfers: [...counting, ...late(10)] }), paid).map((m) => m.kind)).toEqual(Array(10).fill("late"));
  });

  it("puts the totals before the transfers and names the totals without a hash", () => {
    const messages = evidenceMessages(evidence({ receivedAmount: "10", transfers: [transfer({ late: true })] }), awaiting);
    expect(messages.map((m) => [m.kind, m.txHash])).toEqual([["partial", null], ["late", "0xaa"]]);
  });
});

describe("paymentStatus", () => {
  it("has a line for every state before a start and after it ended", () => {
    expect(paymentStatus("select_method", null)).toEqual({ text: "Not started. Choose how you want to pay.", tone: "info" });
    expect(paymentStatus("ready_to_start", null)).toEqual({ text: "Not started.", tone: "info" });
    expect(paymentStatus("unavailable", null)).toEqual({ text: "Payment is not available.", tone: "bad" });
    expect(paymentStatus("paid", evidence({ receivedAmount: "25.5" }))).toEqual({ text: "Paid. Thank you!", tone: "ok" });
  });

  it("goes from waiting to received while awaiting payment", () => {
    expect(paymentStatus("awaiting_payment", null)).toEqual({ text: "Waiting for your payment.", tone: "info" });
    expect(paymentStatus("awaiting_payment", noEvidence("25.5"))).toEqual({ text: "Waiting for your payment.", tone: "info" });
    expect(paymentStatus("awaiting_payment", evidence({ pendingAmount: "1" }))).toEqual({ text: "Payment received, waiting for confirmation.", tone: "info" });
    expect(paymentStatus("awaiting_payment", evidence({ receivedAmount: "1", pendingAmount: "24.5" })).text).toBe("Payment received, waiting for confirmation.");
    expect(paymentStatus("awaiting_payment", evidence({ receivedAmount: "1" }))).toEqual({ text: "Part of the payment has arrived.", tone: "warn" });
    expect(paymentStatus("awaiting_payment", evidence({ receivedAmount: "25.499999" })).text).toBe("Part of the payment has arrived.");
    expect(paymentStatus("awaiting_payment", evidence({ receivedAmount: "25.5" }))).toEqual({ text: "Payment received, finishing up.", tone: "info" });
    expect(paymentStatus("awaiting_payment", evidence({ receivedAmount: "26" })).text).toBe("Payment received, finishing up.");
  });

  it("says not to send once the deadline passed, unless a timely payment is still confirming", () => {
    expect(paymentStatus("expired_for_payment", null)).toEqual({ text: "The time to pay has passed. Do not send anything now.", tone: "bad" });
    expect(paymentStatus("expired_for_payment", evidence({ receivedAmount: "3" })).tone).toBe("bad");
    expect(paymentStatus("expired_for_payment", evidence({ pendingAmount: "25.5" }))).toEqual({
      text: "The time to pay has passed. A payment that arrived in time is still being confirmed.",
      tone: "warn",
    });
  });
});

describe("amountDue", () => {
  it("asks for the rail's minimum when less than it is left, and for exactly what is left otherwise", () => {
    expect(amountDue("10", evidence({ receivedAmount: "9.9995" }), "0.001")).toEqual({ received: "9.9995", remaining: "0.001", raisedToMinimum: true });
    expect(amountDue("10", evidence({ pendingAmount: "9.999" }), "0.001")).toEqual({ received: "9.999", remaining: "0.001", raisedToMinimum: false });
    expect(amountDue("10", evidence({ receivedAmount: "9.9989" }), "0.001")).toEqual({ received: "9.9989", remaining: "0.0011", raisedToMinimum: false });
    expect(amountDue("10", evidence({ receivedAmount: "10" }), "0.001")).toEqual({ received: "10", remaining: "0", raisedToMinimum: false });
    expect(amountDue("10", null, "20")).toEqual({ received: null, remaining: "10", raisedToMinimum: false });
  });

  it("asks for the exact amount until something that counts is seen", () => {
    expect(amountDue("9.99", null)).toEqual({ received: null, remaining: "9.99", raisedToMinimum: false });
    expect(amountDue("9.99", noEvidence("9.99"))).toEqual({ received: null, remaining: "9.99", raisedToMinimum: false });
    // Transfers that do not count change nothing.
    expect(amountDue("9.99", evidence({ expectedAmount: "9.99", transfers: [transfer({ late: true, amount: "5" })] }))).toEqual({ received: null, remaining: "9.99", raisedToMinimum: false });
  });

  it("after part of it, asks for what is left, exactly", () => {
    expect(amountDue("9.99", evidence({ receivedAmount: "5" }))).toEqual({ received: "5", remaining: "4.99", raisedToMinimum: false });
    expect(amountDue("9.99", evidence({ pendingAmount: "5" }))).toEqual({ received: "5", remaining: "4.99", raisedToMinimum: false });
    expect(amountDue("9.99", evidence({ receivedAmount: "3", pendingAmount: "2.5" }))).toEqual({ received: "5.5", remaining: "4.49", raisedToMinimum: false });
    expect(amountDue("0.3", evidence({ receivedAmount: "0.1", pendingAmount: "0.1" }))).toEqual({ received: "0.2", remaining: "0.1", raisedToMinimum: false });
    expect(amountDue("1", evidence({ receivedAmount: "0.000000000000000001" }))).toEqual({ received: "0.000000000000000001", remaining: "0.999999999999999999", raisedToMinimum: false });
  });

  it("asks for nothing once all of it, or more, is seen", () => {
    expect(amountDue("9.99", evidence({ receivedAmount: "9.99" }))).toEqual({ received: "9.99", remaining: "0", raisedToMinimum: false });
    expect(amountDue("9.99", evidence({ receivedAmount: "4.99", pendingAmount: "5" }))).toEqual({ received: "9.99", remaining: "0", raisedToMinimum: false });
    expect(amountDue("9.99", evidence({ pendingAmount: "12" }))).toEqual({ received: "12", remaining: "0", raisedToMinimum: false });
  });
});

describe("unreadTransfers", () => {
  const dust = (n: number) => Array.from({ length: n }, (_, i) => transfer({ txHash: `0xd${i}`, amount: "0", dust: true }));

  it("is none when the list holds every transfer", () => {
    expect(unreadTransfers(evidence({ transfers: [transfer(), ...dust(2)] }))).toEqual({ dust: 0, other: 0 });
    expect(unreadTransfers(noEvidence("1"))).toEqual({ dust: 0, other: 0 });
  });

  it("tells dust from the others among the transfers beyond the list", () => {
    expect(unreadTransfers(evidence({ transfers: dust(1000), total: 1300, dustCount: 1290 }))).toEqual({ dust: 290, other: 10 });
    expect(unreadTransfers(evidence({ transfers: [transfer(), ...dust(3)], total: 10, dustCount: 3 }))).toEqual({ dust: 0, other: 6 });
    expect(unreadTransfers(evidence({ transfers: [transfer()], total: 5, dustCount: 4 }))).toEqual({ dust: 4, other: 0 });
  });

  it("never answers less than none, nor more dust than is unread", () => {
    expect(unreadTransfers(evidence({ transfers: [transfer(), transfer()], total: 1, dustCount: 0 }))).toEqual({ dust: 0, other: 0 });
    expect(unreadTransfers(evidence({ transfers: dust(2), total: 3, dustCount: 9 }))).toEqual({ dust: 1, other: 0 });
    expect(unreadTransfers(evidence({ transfers: dust(2), total: 3, dustCount: 1 }))).toEqual({ dust: 0, other: 1 });
  });
});

describe("receiptEvidence", () => {
  it("names the settled transfers that paid and when the last was mined", () => {
    const receipt = receiptEvidence(
      evidence({
        receivedAmount: "25.5",
        transfers: [
          transfer({ txHash: "0x01", amount: "10", blockTime: later(5) }),
          transfer({ txHash: "0x02", amount: "15.5", blockTime: later(20) }),
          transfer({ txHash: "0x01", amount: "0.5", blockTime: later(5) }),
          transfer({ txHash: "0x03", late: true, blockTime: later(900) }),
          transfer({ txHash: "0x04", state: "pending", blockTime: later(30) }),
          transfer({ txHash: "0x05", state: "orphaned", blockTime: later(40) }),
          transfer({ txHash: "0x06", wrongToken: true, blockTime: later(50) }),
          transfer({ txHash: "0x07", afterPaid: true, blockTime: later(60) }),
        ],
      }),
    );
    expect(receipt).toEqual({ txHashes: ["0x01", "0x02"], paidAt: later(20) });
  });

  it("keeps the latest time whatever the order, and none when no time is known", () => {
    expect(receiptEvidence(evidence({ transfers: [transfer({ blockTime: later(9) }), transfer({ txHash: "0x02", blockTime: later(3) })] })).paidAt).toEqual(later(9));
    expect(receiptEvidence(evidence({ transfers: [transfer({ blockTime: null })] }))).toEqual({ txHashes: ["0xaa"], paidAt: null });
    expect(receiptEvidence(evidence({ transfers: [transfer({ blockTime: null }), transfer({ blockTime: later(1) })] })).paidAt).toEqual(later(1));
    expect(receiptEvidence(noEvidence("1"))).toEqual({ txHashes: [], paidAt: null });
  });
});

describe("a transfer reversed after it settled", () => {
  it("is named reversed, not dropped, and the payer is told it no longer counts", () => {
    const reversed = transfer({ state: "orphaned", vanished: true, txHash: "0x0e" });
    expect(transferKind(reversed)).toBe("reversed");
    expect(transferKind(transfer({ state: "orphaned" }))).toBe("dropped");
    expect(transferReasons({ ...reversed, late: true })).toEqual(["reversed", "late"]);
    const messages = evidenceMessages(evidence({ transfers: [reversed] }), awaiting);
    expect(messages.find((m) => m.kind === "reversed")).toEqual({
      kind: "reversed",
      tone: "bad",
      text: "A transfer of 25.5 USDT that the network had confirmed was later reversed by the network and no longer counts. Check it in your wallet and contact Shop.",
      txHash: "0x0e",
    });
  });
});
