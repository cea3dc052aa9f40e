/**
 * What the payer is told about the transfers seen for their payment (payins'
 * ListPayInTransfers): received and waiting for confirmation, part paid,
 * over-paid, and transfers that do not count (late, another token, another
 * network, dust, dropped by the network).
 */
import { addDecimal, compareDecimal, isPositive, subtractDecimal } from "./decimal.js";
import { networkName, tokenName } from "./payment-terms.js";
import type { PresentationState } from "./presentation-state.js";

export type TransferState = "pending" | "settled" | "orphaned";

/** A transfer seen for the intent, with why it does or does not count. */
export interface EvidenceTransfer {
  asset: string;
  rail: string;
  txHash: string;
  /** Its block's time; null when unknown. */
  blockTime: Date | null;
  /** Canonical decimal string in token units. */
  amount: string;
  state: TransferState;
  late: boolean;
  wrongNetwork: boolean;
  wrongToken: boolean;
  dust: boolean;
}

export interface Evidence {
  expectedAmount: string;
  /** Settled transfers that count toward the expected amount. */
  receivedAmount: string;
  /** Transfers seen, not settled yet, that would count. */
  pendingAmount: string;
  /** Oldest block first. */
  transfers: readonly EvidenceTransfer[];
}

/** No evidence: nothing seen yet. */
export function noEvidence(expectedAmount: string): Evidence {
  return { expectedAmount, receivedAmount: "0", pendingAmount: "0", transfers: [] };
}

export type Tone = "info" | "ok" | "warn" | "bad";

/** Why a transfer does not count, or `counts`. The first that applies names it. */
export type TransferKind = "dropped" | "wrong_network" | "wrong_token" | "dust" | "late" | "counts";

export function transferKind(transfer: EvidenceTransfer): TransferKind {
  if (transfer.state === "orphaned") return "dropped";
  if (transfer.wrongNetwork) return "wrong_network";
  if (transfer.wrongToken) return "wrong_token";
  if (transfer.dust) return "dust";
  if (transfer.late) return "late";
  return "counts";
}

export type MessageKind = "received" | "partial" | "over" | Exclude<TransferKind, "counts">;

export interface EvidenceMessage {
  kind: MessageKind;
  tone: Tone;
  text: string;
  /** The transfer the message is about, when it is about one. */
  txHash: string | null;
}

export interface EvidenceContext {
  /** The intent's asset and rail: what the payer was asked to send. */
  asset: string;
  rail: string;
  merchantName: string;
  state: PresentationState;
}

/** The messages the evidence gives: totals first (pending, part paid, over-paid), then each transfer that does not count. */
export function evidenceMessages(evidence: Evidence, context: EvidenceContext): EvidenceMessage[] {
  const token = tokenName(context.asset);
  const merchant = context.merchantName;
  const paid = context.state === "paid";
  const counted = addDecimal(evidence.receivedAmount, evidence.pendingAmount);
  const expected = evidence.expectedAmount;
  const messages: EvidenceMessage[] = [];
  const say = (kind: MessageKind, tone: Tone, text: string, txHash: string | null = null) => messages.push({ kind, tone, text, txHash });

  if (!paid && isPositive(evidence.pendingAmount)) {
    say(
      "received",
      "info",
      `We have seen ${evidence.pendingAmount} ${token} arrive. It counts once the network confirms it, which usually takes a few minutes. Do not send it again.`,
    );
  }
  const short = compareDecimal(counted, expected) < 0;
  if (!paid && short && isPositive(counted)) {
    const rest = subtractDecimal(expected, counted);
    if (context.state === "expired_for_payment") {
      say(
        "partial",
        "bad",
        `Only ${counted} ${token} of the ${expected} ${token} asked for arrived before the deadline, so this payment is incomplete. Do not send the rest now: contact ${merchant} about what you sent.`,
      );
    } else {
      say("partial", "warn", `So far ${counted} ${token} of ${expected} ${token} has arrived. Send the remaining ${rest} ${token} to the same address before the deadline.`);
    }
  }
  if (compareDecimal(counted, expected) > 0) {
    const extra = subtractDecimal(counted, expected);
    say("over", "warn", `${counted} ${token} arrived, ${extra} ${token} more than the ${expected} ${token} asked for. Contact ${merchant} about the extra amount.`);
  }

  for (const transfer of evidence.transfers) {
    const kind = transferKind(transfer);
    const sent = `${transfer.amount} ${tokenName(transfer.asset)}`;
    const refund = `It does not count towards this payment. Contact ${merchant} to get it back.`;
    switch (kind) {
      case "counts":
        break;
      case "dropped":
        say(kind, "warn", `A transfer of ${sent} that we saw earlier was dropped by the network and does not count. Check it in your wallet.`, transfer.txHash);
        break;
      case "wrong_network":
        say(kind, "bad", `${sent} arrived on ${networkName(transfer.rail)}, but this payment is on ${networkName(context.rail)}. ${refund}`, transfer.txHash);
        break;
      case "wrong_token":
        say(kind, "bad", `${sent} arrived, but this payment is in ${token}. ${refund}`, transfer.txHash);
        break;
      case "dust":
        say(kind, "info", `A very small transfer of ${sent} arrived. It is too small to count towards this payment.`, transfer.txHash);
        break;
      case "late":
        say(kind, "bad", `${sent} arrived after the deadline. ${refund}`, transfer.txHash);
        break;
    }
  }
  return messages;
}

export interface PaymentStatus {
  text: string;
  tone: Tone;
}

/** The one line the status region shows (and a screen reader announces when it changes). */
export function paymentStatus(state: PresentationState, evidence: Evidence | null): PaymentStatus {
  const pending = isPendingPayment(evidence);
  const received = evidence?.receivedAmount ?? "0";
  switch (state) {
    case "select_method":
      return { text: "Not started. Choose how you want to pay.", tone: "info" };
    case "ready_to_start":
      return { text: "Not started.", tone: "info" };
    case "unavailable":
      return { text: "Payment is not available.", tone: "bad" };
    case "paid":
      return { text: "Paid. Thank you!", tone: "ok" };
    case "expired_for_payment":
      return pending
        ? { text: "The time to pay has passed. A payment that arrived in time is still being confirmed.", tone: "warn" }
        : { text: "The time to pay has passed. Do not send anything now.", tone: "bad" };
    case "awaiting_payment":
      if (pending) return { text: "Payment received, waiting for confirmation.", tone: "info" };
      if (evidence !== null && compareDecimal(received, evidence.expectedAmount) >= 0) return { text: "Payment received, finishing up.", tone: "info" };
      if (isPositive(received)) return { text: "Part of the payment has arrived.", tone: "warn" };
      return { text: "Waiting for your payment.", tone: "info" };
  }
}

export interface ReceiptEvidence {
  /** The settled transfers that paid, in block order (distinct hashes). */
  txHashes: string[];
  /** When the last of them was mined; null when none is known. */
  paidAt: Date | null;
}

/** The receipt's part of the evidence: the transactions that paid and when. */
export function receiptEvidence(evidence: Evidence): ReceiptEvidence {
  const paying = evidence.transfers.filter((t) => t.state === "settled" && transferKind(t) === "counts");
  const txHashes = [...new Set(paying.map((t) => t.txHash))];
  let paidAt: Date | null = null;
  for (const t of paying) {
    if (t.blockTime && (paidAt === null || t.blockTime.getTime() > paidAt.getTime())) paidAt = t.blockTime;
  }
  return { txHashes, paidAt };
}

/** Whether a payment that would count has been seen and awaits confirmation. */
export function isPendingPayment(evidence: Evidence | null): boolean {
  return evidence !== null && isPositive(evidence.pendingAmount);
}
