import type { Rail } from "@payin/money";
import type { PayInStatus } from "./pay-in-intent.js";
import { decidePayment, type IntentTerms, type TransferEvidence } from "./settlement.js";
import { observationEvents, type IntentEvent, type TransferChange } from "./intent-events.js";

/** A transfer as the observer reports it: the evidence (but what payins decides on recording it), with where it is on its chain. */
export interface ReportedTransfer extends Omit<TransferEvidence, "afterPaid"> {
  chainId: number;
  txHash: string;
  logIndex: number;
  fromAddress: string;
  blockNumber: bigint;
  blockHash: string;
  /** Rises with every change of the transfer's state; the highest recorded wins. */
  version: number;
  /** Settled once, then taken off the chain by a finality violation (its state is orphaned). */
  vanished: boolean;
}

/** One thing the observer saw for an intent. */
export type Observation =
  | { kind: "armed"; intentUuid: string; rail: Rail; chainId: number; fromBlock: bigint }
  | { kind: "transfer"; intentUuid: string; transfer: ReportedTransfer };

/** What the observer needs to know of an intent to stop watching it. */
export interface WatchState {
  intentUuid: string;
  known: boolean;
  expiresAt: Date | null;
  paid: boolean;
}

export interface ObservedIntent extends IntentTerms {
  status: PayInStatus;
}

/** One intent's part of recording, inside a transaction that holds its row. */
export interface IntentObservationTx {
  /** The intent, its row locked until the transaction ends; null when unknown. */
  lockIntent(intentUuid: string): Promise<ObservedIntent | null>;
  /**
   * Keeps the transfer unless a version at least as high is recorded. `afterPaid`
   * is kept from its first record: a later version changes its block, state and
   * version only. Answers the change it made (the transfer as recorded now, and
   * its state before; null before for a first record), or null when it changed
   * nothing (a version at least as high was recorded).
   */
  saveTransfer(intentUuid: string, transfer: ReportedTransfer, afterPaid: boolean, now: Date): Promise<TransferChange<ReportedTransfer & TransferEvidence> | null>;
  transfersOf(intentUuid: string): Promise<TransferEvidence[]>;
  setStatus(intentUuid: string, status: PayInStatus, now: Date): Promise<void>;
  /** Writes the intent's events in this order, numbered on from its count (the intent as changed by this transaction). */
  writeEvents(intentUuid: string, events: readonly IntentEvent<ReportedTransfer & TransferEvidence>[], now: Date): Promise<void>;
  /** Writes checkout.paid for the checkout whose intent this is, if one is. */
  checkoutPaid(intentUuid: string, now: Date): Promise<void>;
}

export interface ObservationStore {
  /** Runs `work` in one transaction. */
  inTransaction<T>(work: (tx: IntentObservationTx) => Promise<T>): Promise<T>;
}

/**
 * The status an intent moves to: paid is final; paid when the evidence pays
 * it; else awaiting payment once its address is watched (armed) or anything was
 * seen for it; else as it was.
 */
export function nextStatus(current: PayInStatus, watched: boolean, paid: boolean): PayInStatus {
  if (current === "paid" || paid) return "paid";
  if (current === "created" && watched) return "awaiting_payment";
  return current;
}

/**
 * Whether a transfer recorded now is after the intent was paid: when the
 * intent, as locked before the report is recorded, is already paid. A transfer
 * reported in the same call as the one that pays the intent was seen before it
 * was paid, and counts (an over-payment); one first recorded later is kept
 * flagged, whatever state it moves to afterwards.
 */
export function recordedAfterPaid(status: PayInStatus): boolean {
  return status === "paid";
}

/**
 * Records the observer's reports, one transaction per intent (its row locked,
 * its transfers kept by version, its status decided from all of them, and the
 * events of what changed written with it: intent-events.ts decides which), and
 * answers each intent's watch state, in the order intents were first named.
 * Replaying a report changes nothing and writes no event.
 */
export async function recordObservations(store: ObservationStore, observations: readonly Observation[], now: Date): Promise<WatchState[]> {
  const byIntent = new Map<string, Observation[]>();
  for (const observation of observations) {
    const list = byIntent.get(observation.intentUuid) ?? [];
    list.push(observation);
    byIntent.set(observation.intentUuid, list);
  }
  const states: WatchState[] = [];
  for (const [intentUuid, reports] of byIntent) {
    states.push(
      await store.inTransaction(async (tx) => {
        const intent = await tx.lockIntent(intentUuid);
        if (!intent) return { intentUuid, known: false, expiresAt: null, paid: false };
        const afterPaid = recordedAfterPaid(intent.status);
        const changes: TransferChange<ReportedTransfer & TransferEvidence>[] = [];
        for (const report of reports) {
          if (report.kind !== "transfer") continue;
          const change = await tx.saveTransfer(intentUuid, report.transfer, afterPaid, now);
          if (change) changes.push(change);
        }
        const evidence = await tx.transfersOf(intentUuid);
        const decision = decidePayment(intent, evidence);
        const watched = reports.some((r) => r.kind === "armed") || evidence.length > 0;
        const status = nextStatus(intent.status, watched, decision.paid);
        if (status !== intent.status) await tx.setStatus(intentUuid, status, now);
        const events = observationEvents({ terms: intent, before: intent.status, after: status, changes, decision });
        if (events.length > 0) await tx.writeEvents(intentUuid, events, now);
        if (status === "paid" && intent.status !== "paid") await tx.checkoutPaid(intentUuid, now);
        return { intentUuid, known: true, expiresAt: intent.expiresAt, paid: status === "paid" };
      }),
    );
  }
  return states;
}
