import type { Rail } from "@payin/money";
import type { PayInStatus } from "./pay-in-intent.js";
import { decidePayment, type IntentTerms, type TransferEvidence } from "./settlement.js";

/** A transfer as the observer reports it: the evidence, with where it is on its chain. */
export interface ReportedTransfer extends TransferEvidence {
  chainId: number;
  txHash: string;
  logIndex: number;
  fromAddress: string;
  blockNumber: bigint;
  blockHash: string;
  /** Rises with every change of the transfer's state; the highest recorded wins. */
  version: number;
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
  /** Keeps the transfer unless a version at least as high is recorded. */
  saveTransfer(intentUuid: string, transfer: ReportedTransfer, now: Date): Promise<void>;
  transfersOf(intentUuid: string): Promise<TransferEvidence[]>;
  setStatus(intentUuid: string, status: PayInStatus, now: Date): Promise<void>;
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
 * Records the observer's reports, one transaction per intent (its row locked,
 * its transfers kept by version, its status decided from all of them), and
 * answers each intent's watch state, in the order intents were first named.
 * Replaying a report changes nothing.
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
        for (const report of reports) if (report.kind === "transfer") await tx.saveTransfer(intentUuid, report.transfer, now);
        const evidence = await tx.transfersOf(intentUuid);
        const decision = decidePayment(intent, evidence);
        const watched = reports.some((r) => r.kind === "armed") || evidence.length > 0;
        const status = nextStatus(intent.status, watched, decision.paid);
        if (status !== intent.status) await tx.setStatus(intentUuid, status, now);
        return { intentUuid, known: true, expiresAt: intent.expiresAt, paid: status === "paid" };
      }),
    );
  }
  return states;
}
