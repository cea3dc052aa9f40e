/**
 * payins' ListPayInTransfers answer as the pages' evidence
 * (src/presentation/evidence.ts), for the payer's page and the merchant's
 * checkout detail alike.
 */
import { TRANSFER_STATE, type payinsV1 } from "@payin/proto";
import { fromTimestamp } from "@payin/rpc";
import type { Evidence, EvidenceTransfer } from "../presentation/evidence.js";

/** One transfer seen for an intent, with why it does or does not count. */
export function evidenceTransfer(t: payinsV1.PayInTransfer): EvidenceTransfer {
  return {
    asset: t.asset,
    rail: t.rail,
    txHash: t.txHash,
    blockTime: fromTimestamp(t.blockTime) ?? null,
    amount: t.amount,
    state: TRANSFER_STATE.nameOf(t.state) ?? "pending",
    late: t.late,
    wrongNetwork: t.wrongNetwork,
    wrongToken: t.wrongToken,
    dust: t.dust,
    afterPaid: t.afterPaid,
    vanished: t.vanished,
    counts: t.counts,
  };
}

/**
 * The evidence of an intent: its amounts and counts (over every transfer seen)
 * and the transfers payins answered, oldest block first (its first page: up to
 * 1,000; the pages bound what they list far below that).
 */
export function evidenceOf(answer: payinsV1.ListPayInTransfersResponse): Evidence {
  const transfers = answer.transfers.map(evidenceTransfer);
  return {
    expectedAmount: answer.expectedAmount,
    receivedAmount: answer.receivedAmount || "0",
    pendingAmount: answer.pendingAmount || "0",
    afterPaidAmount: answer.afterPaidAmount || "0",
    transfers,
    total: Math.max(Number(answer.total), transfers.length),
    dustCount: Math.max(Number(answer.dustCount), transfers.filter((t) => t.dust).length),
  };
}
