import { TRANSFER_FLAGS, type TransferFlag } from "@payin/events";
import { fromBaseUnits } from "@payin/money";
import type { PayInStatus } from "./pay-in-intent.js";
import { counts, decidePayment, flagsOf, type EvidenceFlags, type IntentTerms, type PaymentDecision, type TransferEvidence } from "./settlement.js";

/**
 * Which events a change of an intent produces: decided here, from what the
 * change knew, so the store only numbers and persists them. The names are
 * @payin/events' types; the data (the resource as a read shows it) is built
 * where the events are written.
 */

/** Each flag of the catalogue with the field of EvidenceFlags (settlement.ts, the one rule) that raises it. */
const FLAG_FIELDS: Readonly<Record<TransferFlag, keyof EvidenceFlags>> = {
  late: "late",
  wrong_network: "wrongNetwork",
  wrong_token: "wrongToken",
  dust: "dust",
  after_paid: "afterPaid",
};

/** The first reason (catalogue order) a transfer does not count, or null when it counts. */
export function flagOf(terms: IntentTerms, transfer: TransferEvidence): TransferFlag | null {
  // Whether it counts is whether any flag is raised (settlement.ts): the first in the catalogue's order names why not.
  const flags = flagsOf(terms, transfer);
  return TRANSFER_FLAGS.find((flag) => flags[FLAG_FIELDS[flag]]) ?? null;
}

/** A transfer's state as recorded before a report changed it (null: first recorded now). */
export interface PreviousTransferState {
  state: TransferEvidence["state"];
}

/** One transfer a report changed: as recorded now, and as it was before. */
export interface TransferChange<T extends TransferEvidence = TransferEvidence> {
  transfer: T;
  previous: PreviousTransferState | null;
}

/** An intent event to write, in the order it happened; `transfer` is the one that caused it. */
export type IntentEvent<T extends TransferEvidence = TransferEvidence> =
  | { type: "pay_in_intent.awaiting_payment" }
  | { type: "pay_in_intent.transfer_detected" | "pay_in_intent.transfer_settled" | "pay_in_intent.transfer_orphaned"; transfer: T }
  | { type: "pay_in_intent.transfer_flagged"; transfer: T; flag: TransferFlag }
  | { type: "pay_in_intent.paid"; transfer: T | null };

const STATE_EVENT = {
  pending: "pay_in_intent.transfer_detected",
  settled: "pay_in_intent.transfer_settled",
  orphaned: "pay_in_intent.transfer_orphaned",
} as const;

/**
 * The events of one transfer's change. A transfer that counts is told at each
 * state it reaches: detected (pending), settled, orphaned. One that does not
 * count is told once, flagged with why, when first recorded (its state shows
 * in the transfer); its later state changes are told as any transfer's, except
 * a dust transfer's (spam to an address is told once, never again). A report
 * that changed nothing (an older or equal version) is no change and never
 * reaches here; one that changed the block only, not the state, tells nothing.
 */
export function transferEvents<T extends TransferEvidence>(terms: IntentTerms, change: TransferChange<T>): IntentEvent<T>[] {
  const { transfer, previous } = change;
  if (previous === null) {
    const flag = flagOf(terms, transfer);
    if (flag !== null) return [{ type: "pay_in_intent.transfer_flagged", transfer, flag }];
    return [{ type: STATE_EVENT[transfer.state], transfer }];
  }
  if (previous.state === transfer.state || transfer.dust) return [];
  return [{ type: STATE_EVENT[transfer.state], transfer }];
}

/** Whether a change settled a transfer that counts (it was not received before). */
function settledByChange(terms: IntentTerms, change: TransferChange): boolean {
  return change.transfer.state === "settled" && change.previous?.state !== "settled" && counts(terms, change.transfer);
}

/**
 * The transfer that completed the payment: of the counting transfers this
 * change settled, in the order reported, the one that brought what was
 * received up to the expected amount (what was received before them is
 * `received` less their amounts).
 */
export function completingTransfer<T extends TransferEvidence>(
  terms: IntentTerms,
  decision: Pick<PaymentDecision, "received" | "expected">,
  changes: readonly TransferChange<T>[],
): T | null {
  const settled = changes.filter((c) => settledByChange(terms, c)).map((c) => c.transfer);
  let running = decision.received - settled.reduce((sum, t) => sum + t.amount, 0n);
  for (const transfer of settled) {
    running += transfer.amount;
    if (running >= decision.expected) return transfer;
  }
  return settled.at(-1) ?? null;
}

/**
 * The events of one recording of observations for an intent, in order:
 * awaiting payment (left created), each transfer's change in the order
 * reported, then paid (became paid) with the transfer that completed it.
 */
export function observationEvents<T extends TransferEvidence>(input: {
  terms: IntentTerms;
  before: PayInStatus;
  after: PayInStatus;
  changes: readonly TransferChange<T>[];
  /** The payment decision over every transfer after the change. */
  decision: Pick<PaymentDecision, "received" | "expected">;
}): IntentEvent<T>[] {
  const events: IntentEvent<T>[] = [];
  if (input.before === "created" && input.after !== "created") events.push({ type: "pay_in_intent.awaiting_payment" });
  for (const change of input.changes) events.push(...transferEvents(input.terms, change));
  if (input.before !== "paid" && input.after === "paid") {
    events.push({ type: "pay_in_intent.paid", transfer: completingTransfer(input.terms, input.decision, input.changes) });
  }
  return events;
}

/** How an intent stood when its deadline passed unpaid: nothing or part settled, and how much (token units). */
export interface DeadlineOutcome {
  outcome: "unpaid" | "underpaid";
  receivedAmount: string;
}

/**
 * The deadline_passed event's outcome for an intent not paid at its deadline:
 * underpaid when settled, counting transfers add up to something, else unpaid
 * (the payment decision of settlement.ts, the one rule).
 */
export function deadlineOutcome(terms: IntentTerms, evidence: readonly TransferEvidence[]): DeadlineOutcome {
  const decision = decidePayment(terms, evidence);
  if (decision.decimals === null || decision.received === 0n) return { outcome: "unpaid", receivedAmount: "0" };
  return { outcome: "underpaid", receivedAmount: fromBaseUnits(decision.received, decision.decimals) };
}
