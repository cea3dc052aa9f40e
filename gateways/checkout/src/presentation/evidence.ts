/**
 * What the payer is told about the transfers seen for their payment (payins'
 * ListPayInTransfers): received and waiting for confirmation, part paid (and
 * what is left to send), over-paid, and transfers that do not count (late,
 * another token, another network, dust, dropped by the network, arrived after
 * the payment was complete). Spam cannot make a page long: beyond a few, the
 * transfers that do not count are counted, not listed.
 */
import { addDecimal, compareDecimal, isPositive, subtractDecimal } from "./decimal.js";
import { networkName, tokenName } from "./payment-terms.js";
import type { TransferStateName } from "@payin/proto";
import type { PresentationState } from "./presentation-state.js";

export type TransferState = TransferStateName;

/** A transfer seen for the intent: whether it counts (payins decides), and why not. */
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
  /** Recorded after the intent was paid (a second payment, a top-up): never counts. */
  afterPaid: boolean;
  /** It had settled, then a reorganisation below the settled point took it off the chain (its state is orphaned). */
  vanished: boolean;
  /** It counts toward the intent (settled: received; pending: once confirmed): payins' decision, never made again here. */
  counts: boolean;
}

/** An intent's evidence, as payins answers it: its amounts and counts are over every transfer seen, its list may hold only the first of them. */
export interface Evidence {
  expectedAmount: string;
  /** Settled transfers that count toward the expected amount. */
  receivedAmount: string;
  /** Transfers seen, not settled yet, that would count. */
  pendingAmount: string;
  /** Settled transfers of the intent's token on its network, recorded after it was paid, not dust: what the merchant gives back. */
  afterPaidAmount: string;
  /** The transfers read, oldest block first: every one, or the first of them when there are very many. */
  transfers: readonly EvidenceTransfer[];
  /** How many transfers were seen in all. */
  total: number;
  /** How many of all of them are dust (zero, or below the dust threshold). */
  dustCount: number;
}

/** No evidence: nothing seen yet. */
export function noEvidence(expectedAmount: string): Evidence {
  return { expectedAmount, receivedAmount: "0", pendingAmount: "0", afterPaidAmount: "0", transfers: [], total: 0, dustCount: 0 };
}

/** The transfers seen but not read (beyond the list's end): how many of them are dust, and how many are not. */
export function unreadTransfers(evidence: Pick<Evidence, "transfers" | "total" | "dustCount">): { dust: number; other: number } {
  const unread = Math.max(0, evidence.total - evidence.transfers.length);
  const dustRead = evidence.transfers.filter((transfer) => transfer.dust).length;
  const dust = Math.min(unread, Math.max(0, evidence.dustCount - dustRead));
  return { dust, other: unread - dust };
}

export type Tone = "info" | "ok" | "warn" | "bad";

/**
 * Why a transfer does not count, or `counts`. The first that applies names it;
 * `not_counted` when payins says it does not count for a reason this gateway
 * cannot name (a payins of another version).
 */
export type TransferKind = "reversed" | "dropped" | "wrong_network" | "wrong_token" | "dust" | "after_paid" | "late" | "not_counted" | "counts";

/** Every reason a transfer does not count, the one that names it first, from the flags payins answered; none when it counts. */
export function transferReasons(transfer: EvidenceTransfer): Exclude<TransferKind, "counts">[] {
  if (transfer.counts) return [];
  const reasons: Exclude<TransferKind, "counts">[] = [];
  // Orphaned: dropped before it settled, or (vanished) reversed after it had, by a reorganisation below the settled point.
  if (transfer.state === "orphaned") reasons.push(transfer.vanished ? "reversed" : "dropped");
  if (transfer.wrongNetwork) reasons.push("wrong_network");
  if (transfer.wrongToken) reasons.push("wrong_token");
  if (transfer.dust) reasons.push("dust");
  // After `paid` a transfer is also often after the deadline: that it came after the payment says more.
  if (transfer.afterPaid) reasons.push("after_paid");
  if (transfer.late) reasons.push("late");
  return reasons.length > 0 ? reasons : ["not_counted"];
}

export function transferKind(transfer: EvidenceTransfer): TransferKind {
  return transfer.counts ? "counts" : transferReasons(transfer)[0]!;
}

/** What a list of transfers shows, and how many of the others it only counts. */
export interface BoundedTransfers<T> {
  /** In their order. */
  listed: T[];
  /** Dust (zero or very small) left out of the list. */
  moreDust: number;
  /** Others left out of the list. */
  more: number;
}

export interface TransferLimits {
  /** At most this many dust transfers are listed. */
  dust: number;
  /** At most this many transfers are listed in all. */
  total: number;
}

/**
 * Bounds a list of transfers whatever a sender does: at most `limits.dust`
 * dust transfers and `limits.total` in all are listed, in their order; the
 * rest are counted. Dust and zero-value transfers cost a spammer next to
 * nothing, so they get the fewer places.
 */
export function boundTransfers<T>(items: readonly T[], kindOf: (item: T) => TransferKind, limits: TransferLimits): BoundedTransfers<T> {
  const bounded: BoundedTransfers<T> = { listed: [], moreDust: 0, more: 0 };
  let dust = 0;
  for (const item of items) {
    const isDust = kindOf(item) === "dust";
    if (bounded.listed.length < limits.total && (!isDust || dust < limits.dust)) {
      bounded.listed.push(item);
      if (isDust) dust++;
    } else if (isDust) {
      bounded.moreDust++;
    } else {
      bounded.more++;
    }
  }
  return bounded;
}

/** The payer's page lists at most this many transfers that do not count (3 of them dust), and counts the rest. */
export const PAYER_TRANSFER_LIMITS: TransferLimits = { dust: 3, total: 10 };

export type MessageKind = "received" | "partial" | "over" | "more" | Exclude<TransferKind, "counts">;

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
  /** The smallest amount that counts on the rail (token units; "0" when unknown): a rest below it is asked for as this much. */
  minimum?: string;
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
    const { remaining: rest, raisedToMinimum } = amountDue(expected, evidence, context.minimum);
    if (context.state === "expired_for_payment") {
      say(
        "partial",
        "bad",
        `Only ${counted} ${token} of the ${expected} ${token} asked for arrived before the deadline, so this payment is incomplete. Do not send the rest now: contact ${merchant} about what you sent.`,
      );
    } else {
      say(
        "partial",
        "warn",
        raisedToMinimum
          ? `So far ${counted} ${token} of ${expected} ${token} has arrived. Send ${rest} ${token} more to the same address before the deadline: a smaller transfer would not count.`
          : `So far ${counted} ${token} of ${expected} ${token} has arrived. Send the remaining ${rest} ${token} to the same address before the deadline.`,
      );
    }
  }
  if (compareDecimal(counted, expected) > 0) {
    const extra = subtractDecimal(counted, expected);
    say("over", "warn", `${counted} ${token} arrived, ${extra} ${token} more than the ${expected} ${token} asked for. Contact ${merchant} about the extra amount.`);
  }

  const notCounting = evidence.transfers.filter((transfer) => transferKind(transfer) !== "counts");
  const bounded = boundTransfers(notCounting, transferKind, PAYER_TRANSFER_LIMITS);
  for (const transfer of bounded.listed) {
    const kind = transferKind(transfer);
    const sent = `${transfer.amount} ${tokenName(transfer.asset)}`;
    const refund = `It does not count towards this payment. Contact ${merchant} to get it back.`;
    switch (kind) {
      case "reversed":
        say(kind, "bad", `A transfer of ${sent} that the network had confirmed was later reversed by the network and no longer counts. Check it in your wallet and contact ${merchant}.`, transfer.txHash);
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
      case "after_paid":
        say(kind, "warn", `A further ${sent} arrived after this payment was complete. It does not count; contact ${merchant} to get it back.`, transfer.txHash);
        break;
      case "late":
        say(kind, "bad", `${sent} arrived after the deadline. ${refund}`, transfer.txHash);
        break;
      case "not_counted":
        say(kind, "warn", `A transfer of ${sent} arrived that does not count towards this payment. Contact ${merchant} about it.`, transfer.txHash);
        break;
      default: {
        // Only counting transfers are left (they are not listed): a new kind without its message fails to compile here.
        const _counts: "counts" = kind;
      }
    }
  }
  const unread = unreadTransfers(evidence);
  const moreDust = bounded.moreDust + unread.dust;
  if (moreDust > 0) {
    say("dust", "info", `And ${moreDust} more very small ${plural(moreDust, "transfer that does", "transfers that do")} not count.`);
  }
  if (bounded.more > 0) {
    say("more", "warn", `And ${bounded.more} more ${plural(bounded.more, "transfer that does", "transfers that do")} not count towards this payment. Contact ${merchant} about ${plural(bounded.more, "it", "them")}.`);
  }
  if (unread.other > 0) {
    say("more", "info", `And ${unread.other} more ${plural(unread.other, "transfer", "transfers")} not shown here.`);
  }
  return messages;
}

const plural = (count: number, one: string, many: string) => (count === 1 ? one : many);

/**
 * What is left to send: the expected amount until something that counts is
 * seen (settled, or waiting for confirmation); then what is missing, with what
 * has been received; "0" once all of it is seen. A rest below the rail's
 * `minimum` (a transfer that small is dust and would never count) is asked
 * for as the minimum: the payer over-pays a little rather than never
 * finishing. Exact decimal arithmetic.
 */
export interface AmountDue {
  /** Seen so far that counts (settled and pending); null while nothing counts. */
  received: string | null;
  /** What the payer is asked to send now. */
  remaining: string;
  /** The rest was below the minimum and is asked for as the minimum. */
  raisedToMinimum: boolean;
}

export function amountDue(expectedAmount: string, evidence: Evidence | null, minimum = "0"): AmountDue {
  if (evidence === null) return { received: null, remaining: expectedAmount, raisedToMinimum: false };
  const counted = addDecimal(evidence.receivedAmount, evidence.pendingAmount);
  if (!isPositive(counted)) return { received: null, remaining: expectedAmount, raisedToMinimum: false };
  if (compareDecimal(counted, expectedAmount) >= 0) return { received: counted, remaining: "0", raisedToMinimum: false };
  const rest = subtractDecimal(expectedAmount, counted);
  if (compareDecimal(rest, minimum) < 0) return { received: counted, remaining: minimum, raisedToMinimum: true };
  return { received: counted, remaining: rest, raisedToMinimum: false };
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
  const paying = evidence.transfers.filter((t) => t.state === "settled" && t.counts);
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
