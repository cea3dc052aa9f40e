import { DomainError } from "@payin/errors";
import type { PayInIntent } from "./pay-in-intent.js";
import { getPayInIntent, type PayInReader } from "./read-pay-in-intents.js";
import { PayinsReason } from "./reasons.js";
import { decidePayment, type PaymentDecision, type TransferEvidence } from "./settlement.js";

/**
 * Most transfers one listing answers, and what it answers when no limit is
 * given: an address sprayed with thousands of zero-value transfers never makes
 * one answer unbounded. The amounts and counts still cover every transfer.
 */
export const MAX_TRANSFERS_PER_PAGE = 1000;

/** Which transfers of an intent to list: `limit` of them from `offset`, oldest block first. */
export interface TransferPage {
  limit: number;
  offset: number;
}

/** The evidence of an intent, read at one point in time. */
export interface TransferLedger<T extends TransferEvidence> {
  /** Every transfer of the intent, for the amounts and counts, and the page of them to list (the same read). */
  transfersOf(intentUuid: string, page: TransferPage): Promise<{ all: TransferEvidence[]; page: T[] }>;
}

/** What a listing answers: the intent, its amounts and counts over every transfer, and the page. */
export interface TransferListing<T extends TransferEvidence> {
  intent: PayInIntent;
  /** Received, pending and after-paid amounts over every transfer. */
  decision: PaymentDecision;
  /** Transfers seen for the intent, whatever the page. */
  total: number;
  /** Those flagged dust (below the threshold, or zero): spam is counted without being listed. */
  dustCount: number;
  transfers: T[];
}

/** Checks a listing's page: limit 1 to MAX_TRANSFERS_PER_PAGE, 0 meaning that many; offset 0 or more. */
export function transferPage(input: { limit: number; offset: number }): TransferPage {
  const invalid = (message: string) => new DomainError(PayinsReason.ValidationError, message);
  if (!Number.isInteger(input.limit) || input.limit < 0 || input.limit > MAX_TRANSFERS_PER_PAGE) {
    throw invalid(`limit must be 1 to ${MAX_TRANSFERS_PER_PAGE} (unset for up to ${MAX_TRANSFERS_PER_PAGE})`);
  }
  if (!Number.isInteger(input.offset) || input.offset < 0) throw invalid("offset must be 0 or more");
  return { limit: input.limit === 0 ? MAX_TRANSFERS_PER_PAGE : input.limit, offset: input.offset };
}

/**
 * Lists a page of the transfers seen for one intent of the merchant, with the
 * amounts (received, pending, after paid) and counts (all, dust) over every one
 * of them. Another merchant's intent is as missing as a missing one.
 */
export async function listPayInTransfers<T extends TransferEvidence>(
  reader: PayInReader,
  ledger: TransferLedger<T>,
  input: { merchantUuid: string; intentUuid: string; limit: number; offset: number },
): Promise<TransferListing<T>> {
  const page = transferPage(input);
  const intent = await getPayInIntent(reader, input.merchantUuid, input.intentUuid);
  const { all, page: transfers } = await ledger.transfersOf(intent.intentUuid, page);
  return {
    intent,
    decision: decidePayment(intent, all),
    total: all.length,
    dustCount: all.filter((t) => t.dust).length,
    transfers,
  };
}
