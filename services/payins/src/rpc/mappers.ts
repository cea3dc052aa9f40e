import { create } from "@bufbuild/protobuf";
import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { fromBaseUnits, isAsset, isRail } from "@payin/money";
import { CHECKOUT_STATE, PAY_IN_STATUS, payinsV1, TRANSFER_STATE, type CheckoutStateName, type PayInStatusName, type SameNames, type TransferStateName } from "@payin/proto";
import { fromTimestamp, toTimestamp } from "@payin/rpc";
import { sessionState, type CheckoutRecord, type CheckoutState } from "../domain/checkout-session.js";
import type { PayInIntent, PayInStatus } from "../domain/pay-in-intent.js";
import { PayinsReason } from "../domain/reasons.js";
import type { Observation, ReportedTransfer } from "../domain/record-observations.js";
import { countsNow, flagsOf, type IntentTerms, type TransferEvidence } from "../domain/settlement.js";
import type { TransferListing } from "../domain/list-transfers.js";


/** The payins service's domain values as its contract's messages. */

// The domain's names are the contract's (@payin/proto derives them): these fail to compile when one side gains a value alone.
const _statusNames: SameNames<PayInStatus, PayInStatusName> = true;
const _transferStateNames: SameNames<TransferEvidence["state"], TransferStateName> = true;
const _checkoutStateNames: SameNames<CheckoutState, CheckoutStateName> = true;

const { PayInIntentSchema } = payinsV1;

export function payInIntentToPb(i: PayInIntent): payinsV1.PayInIntent {
  return create(PayInIntentSchema, {
    intentUuid: i.intentUuid,
    merchantUuid: i.merchantUuid,
    status: PAY_IN_STATUS.byName[i.status],
    asset: i.asset,
    rail: i.rail,
    expectedAmount: i.expectedAmount,
    address: i.address ?? undefined,
    allocationReference: i.allocationReference ?? undefined,
    reference: i.reference ?? undefined,
    jurisdiction: i.jurisdiction,
    createdAt: toTimestamp(i.createdAt),
    expiresAt: toTimestamp(i.expiresAt),
    updatedAt: toTimestamp(i.updatedAt),
  });
}

const HASH = /^0x[0-9a-f]{64}$/;
const ADDRESS = /^0x[0-9a-f]{40}$/;
const DIGITS = /^\d{1,78}$/;
const INT32_MAX = 2 ** 31 - 1;
const INT64_MAX = 2n ** 63n - 1n;

function invalid(message: string): never {
  throw new DomainError(PayinsReason.ValidationError, message);
}

/** An observation from its message; refuses a malformed one (VALIDATION_ERROR) before anything is recorded. */
export function observationFromPb(o: payinsV1.Observation): Observation {
  if (!isUuid(o.intentUuid)) invalid("an observation names no intent uuid");
  if (o.event.case === "armed" && (o.event.value.fromBlock > INT64_MAX || o.event.value.chainId > BigInt(Number.MAX_SAFE_INTEGER))) {
    invalid("an armed observation's block number or chain id is out of range");
  }
  const event = o.event;
  if (event.case === "armed") {
    const rail = event.value.rail;
    if (!isRail(rail)) invalid(`unknown rail "${rail}"`);
    return { kind: "armed", intentUuid: o.intentUuid, rail, chainId: Number(event.value.chainId), fromBlock: event.value.fromBlock };
  }
  if (event.case !== "transfer") invalid("an observation carries no event");
  const t = event.value;
  const state = TRANSFER_STATE.nameOf(t.state);
  if (!isRail(t.rail)) invalid(`unknown rail "${t.rail}"`);
  if (!isAsset(t.asset)) invalid(`unknown asset "${t.asset}"`);
  if (!state) invalid("a transfer has no state");
  if (!HASH.test(t.txHash) || !HASH.test(t.blockHash)) invalid("a transfer's hashes must be 0x and 64 lower-case hex digits");
  if (!ADDRESS.test(t.fromAddress) || !ADDRESS.test(t.toAddress)) invalid("a transfer's addresses must be 0x and 40 lower-case hex digits");
  if (!DIGITS.test(t.amountBaseUnits)) invalid("a transfer's amount must be base units in decimal digits");
  if (t.decimals > 36) invalid("a token has at most 36 decimals");
  if (!t.blockTime || t.version < 1) invalid("a transfer needs its block time and a version");
  // What the tables hold: integer log indexes and versions, bigint block numbers, chain ids exact in a JS number.
  if (t.logIndex > INT32_MAX || t.version > INT32_MAX) invalid("a transfer's log index and version are at most 2^31 - 1");
  if (t.blockNumber > INT64_MAX || t.chainId > BigInt(Number.MAX_SAFE_INTEGER)) invalid("a transfer's block number or chain id is out of range");
  return {
    kind: "transfer",
    intentUuid: o.intentUuid,
    transfer: {
      chainId: Number(t.chainId),
      txHash: t.txHash,
      logIndex: t.logIndex,
      rail: t.rail,
      asset: t.asset,
      decimals: t.decimals,
      amount: BigInt(t.amountBaseUnits),
      fromAddress: t.fromAddress,
      blockNumber: t.blockNumber,
      blockHash: t.blockHash,
      blockTime: fromTimestamp(t.blockTime)!,
      state,
      dust: t.dust,
      version: t.version,
      vanished: t.vanished,
    },
  };
}

/** The evidence listing of an intent: a page of its transfers, amounts and counts over all of them. */
export function transfersToPb(listing: TransferListing<ReportedTransfer & TransferEvidence>): payinsV1.ListPayInTransfersResponse {
  const { intent: terms, decision } = listing;
  const inTokenUnits = (units: bigint) => (decision.decimals === null ? "0" : fromBaseUnits(units, decision.decimals));
  return create(payinsV1.ListPayInTransfersResponseSchema, {
    asset: terms.asset,
    rail: terms.rail,
    expectedAmount: terms.expectedAmount,
    receivedAmount: inTokenUnits(decision.received),
    pendingAmount: inTokenUnits(decision.pending),
    afterPaidAmount: inTokenUnits(decision.afterPaid),
    total: BigInt(listing.total),
    dustCount: BigInt(listing.dustCount),
    transfers: listing.transfers.map((t) => transferToPb(terms, t)),
  });
}

/** One transfer of an intent as its message, with why it does or does not count. */
export function transferToPb(terms: IntentTerms, t: ReportedTransfer & TransferEvidence): payinsV1.PayInTransfer {
  const flags = flagsOf(terms, t);
  return create(payinsV1.PayInTransferSchema, {
    rail: t.rail,
    chainId: BigInt(t.chainId),
    asset: t.asset,
    txHash: t.txHash,
    logIndex: t.logIndex,
    blockNumber: t.blockNumber,
    blockTime: toTimestamp(t.blockTime),
    fromAddress: t.fromAddress,
    amount: fromBaseUnits(t.amount, t.decimals),
    state: TRANSFER_STATE.byName[t.state],
    late: flags.late,
    wrongNetwork: flags.wrongNetwork,
    wrongToken: flags.wrongToken,
    dust: flags.dust,
    afterPaid: flags.afterPaid,
    vanished: t.vanished,
    counts: countsNow(terms, t),
  });
}

/** A checkout session as its message (never its token or terms); paid when its intent is paid. */
export function checkoutSessionToPb(record: CheckoutRecord): payinsV1.CheckoutSession {
  const s = record.session;
  return create(payinsV1.CheckoutSessionSchema, {
    checkoutUuid: s.checkoutUuid,
    merchantUuid: s.merchantUuid,
    reference: s.reference ?? undefined,
    description: s.description ?? undefined,
    amount: s.amount,
    pairs: s.pairs.map((p) => ({ asset: p.asset, rail: p.rail })),
    jurisdiction: s.jurisdiction,
    state: CHECKOUT_STATE.byName[sessionState(record)],
    intentUuid: s.intentUuid ?? undefined,
    paymentWindowSeconds: s.paymentWindowS,
    createdAt: toTimestamp(s.createdAt),
    updatedAt: toTimestamp(s.updatedAt),
  });
}
