import { toBaseUnits, type Asset, type Rail } from "@payin/money";

/** What the observer reports of a transfer seen for an intent's address (on any rail, in any watched token). */
export interface TransferEvidence {
  rail: Rail;
  asset: Asset;
  /** The token's decimals on that rail; `amount` is in its base units. */
  decimals: number;
  amount: bigint;
  /** The including block's time: lateness is judged by it, never by when it was seen. */
  blockTime: Date;
  /** pending: seen, not yet settled; settled: final; orphaned: reorganised out (kept as evidence). */
  state: "pending" | "settled" | "orphaned";
  /** Below the rail's dust threshold or zero (decided by the observer, which knows the thresholds). */
  dust: boolean;
  /**
   * First recorded while the intent was already paid (a second payment, a
   * top-up): decided once, when payins first records it (recordedAfterPaid),
   * and kept through its later states.
   */
  afterPaid: boolean;
}

/** Why a transfer does not count toward the intent, if it does not. */
export interface EvidenceFlags {
  /** In a block after the intent's `expires_at`. */
  late: boolean;
  /** On another rail than the intent's. */
  wrongNetwork: boolean;
  /** Another token than the intent's asset. */
  wrongToken: boolean;
  dust: boolean;
  /** Recorded after the intent was paid: paid is final, so it is given back, never counted. */
  afterPaid: boolean;
}

export interface IntentTerms {
  asset: Asset;
  rail: Rail;
  /** Canonical decimal string in token units. */
  expectedAmount: string;
  expiresAt: Date;
}

export interface PaymentDecision {
  /** True when settled, counting transfers reach the expected amount. */
  paid: boolean;
  /** Base units of the intent's token: expected, settled and counted, seen but not settled (would count). */
  expected: bigint;
  received: bigint;
  pending: bigint;
  /**
   * Base units of the intent's token on its rail, settled, not dust, recorded
   * after the intent was paid (late or not): what the merchant gives back.
   */
  afterPaid: bigint;
  /** The intent's token decimals, which the amounts are in (null when no transfer was seen in that token on its rail). */
  decimals: number | null;
}

/** The flags of one transfer against the intent's terms. */
export function flagsOf(terms: IntentTerms, transfer: TransferEvidence): EvidenceFlags {
  return {
    late: transfer.blockTime.getTime() > terms.expiresAt.getTime(),
    wrongNetwork: transfer.rail !== terms.rail,
    wrongToken: transfer.asset !== terms.asset,
    dust: transfer.dust,
    afterPaid: transfer.afterPaid,
  };
}

/** Whether a transfer, whatever its state, is of a kind that pays the intent. */
export function counts(terms: IntentTerms, transfer: TransferEvidence): boolean {
  const flags = flagsOf(terms, transfer);
  return !flags.late && !flags.wrongNetwork && !flags.wrongToken && !flags.dust && !flags.afterPaid;
}

/**
 * Whether a transfer counts toward the intent now: of a kind that pays it and
 * not orphaned (settled, it is received; pending, it would be once settled).
 * The one decision: payins answers it per transfer (PayInTransfer.counts).
 */
export function countsNow(terms: IntentTerms, transfer: TransferEvidence): boolean {
  return counts(terms, transfer) && transfer.state !== "orphaned";
}

/** Whether a transfer is money the merchant gives back: the intent's token on its rail, settled, not dust, recorded after paid. */
function givenBack(terms: IntentTerms, transfer: TransferEvidence): boolean {
  const flags = flagsOf(terms, transfer);
  return flags.afterPaid && !flags.wrongNetwork && !flags.wrongToken && !flags.dust && transfer.state === "settled";
}

/**
 * Decides payment from the evidence, in exact base units: paid when the
 * settled transfers of the intent's token on its rail, each in a block at or
 * before `expires_at` and none of them dust, add up to at least the expected
 * amount. Pending and orphaned transfers never pay; `paid` is decided only from
 * settled ones, so it never has to be undone. A transfer recorded after the
 * intent was paid never counts: it adds up apart, as the amount to give back.
 */
export function decidePayment(terms: IntentTerms, evidence: readonly TransferEvidence[]): PaymentDecision {
  let decimals: number | null = null;
  let received = 0n;
  let pending = 0n;
  let afterPaid = 0n;
  for (const transfer of evidence) {
    const counted = countsNow(terms, transfer);
    const back = givenBack(terms, transfer);
    if (!counted && !back) continue;
    if (decimals !== null && decimals !== transfer.decimals) throw new Error("transfers of one token on one rail report different decimals");
    decimals = transfer.decimals;
    if (back) afterPaid += transfer.amount;
    else if (transfer.state === "settled") received += transfer.amount;
    else pending += transfer.amount;
  }
  if (decimals === null) return { paid: false, expected: 0n, received: 0n, pending: 0n, afterPaid: 0n, decimals: null };
  const expected = toBaseUnits(terms.expectedAmount, decimals);
  return { paid: received >= expected, expected, received, pending, afterPaid, decimals };
}
