import { describe, expect, it } from "vitest";
import {
  evidenceMessages,
  noEvidence,
  paymentStatus,
  receiptEvidence,
  transferKind,
  type Evidence,
  type EvidenceContext,
  type EvidenceTransfer,
} from "./evidence.js";

const t0 = new Date("2026-11-27T12:00:00.000Z");
const later = (s: number) => new Date(t0.getTime() + s * 1000);

function transfer(over: Partial<EvidenceTransfer> = {}): EvidenceTransfer {
  return {
    asset: "usdt", rail: "bep20", txHash: "0xaa", blockTime: t0, amount: "25.5", state: "settled",
    late: false, wrongNetwork: false, wrongToken: false, dust: false, ...over,
  };
}

function evidence(over: Partial<Evidence> = {}): Evidence {
  return { expectedAmount: "25.5", receivedAmount: "0", pendingAmount: "0", transfers: [], ...over };
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
  });
});

describe("evidenceMessages", () => {
  it("says nothing before anything arrived, or when exactly the amount was paid", () => {
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
