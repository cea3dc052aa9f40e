/**
 * Checkouts as the merchant's history and detail pages show them: a
 * merchant-facing state (the session's state and its pay-in intent), the
 * presentation state its payer's page is in (the contract's names), the
 * pay-in's canonical status, its deposit address, the hash of each settled
 * transaction that counts toward it, and the transfers seen (bounded: beyond a
 * limit they are counted, not listed), with why each does not count and what
 * arrived after the pay-in was paid, to give back.
 */
import { isAsset, isRail } from "@payin/money";
import { CHECKOUT_STATE, merchantsV1, PAY_IN_STATUS, payinsV1, TRANSFER_STATE, type PayInStatusName, type TransferStateName } from "@payin/proto";
import { fromTimestamp } from "@payin/rpc";
import type { AppDeps } from "../../deps.js";
import { isPositive } from "../../presentation/decimal.js";
import { boundTransfers, transferKind, transferReasons, unreadTransfers, type EvidenceTransfer, type TransferKind, type TransferLimits } from "../../presentation/evidence.js";
import { presentationState, type CheckoutPair, type PresentationState } from "../../presentation/presentation-state.js";
import { pairLabel } from "../../presentation/readiness-reasons.js";
import { evidenceOf, evidenceTransfer } from "../evidence-of.js";
import { timeView, type Area, type TimeView } from "./area.js";

const { CheckoutState, PayInStatus } = payinsV1;

/**
 * Where a checkout stands for its merchant: open (nobody started it), started
 * (a pay-in exists, awaiting payment), paid (the pay-in's canonical status is
 * paid), disabled, or expired for payment (started, its deadline passed
 * unpaid; presentation only, the pay-in is unchanged).
 */
export type MerchantCheckoutState = "open" | "started" | "paid" | "disabled" | "expired_for_payment";

const STATE_WORDS: Readonly<Record<MerchantCheckoutState, string>> = {
  open: "Open: not started yet",
  started: "Started: awaiting payment",
  paid: "Paid",
  disabled: "Disabled",
  expired_for_payment: "Expired for payment: the deadline passed unpaid",
};

/** The merchant-facing state of a session and its intent at `now`; the deadline instant itself is not yet past. */
export function merchantCheckoutState(session: Pick<payinsV1.CheckoutSession, "state">, intent: Pick<payinsV1.PayInIntent, "status" | "expiresAt"> | undefined, now: Date): MerchantCheckoutState {
  if (session.state === CheckoutState.DISABLED) return "disabled";
  if (session.state === CheckoutState.PAID || intent?.status === PayInStatus.PAID) return "paid";
  if (intent) {
    const deadline = fromTimestamp(intent.expiresAt);
    return deadline && now.getTime() > deadline.getTime() ? "expired_for_payment" : "started";
  }
  return session.state === CheckoutState.STARTED ? "started" : "open";
}

/**
 * What the payer's page of a checkout nobody started depends on besides the
 * checkout: whether its merchant is active, and which pairs are Ready now for
 * a sale in the checkout's jurisdiction.
 */
export interface PayerConditions {
  merchantActive: boolean;
  /** The pairs Ready now in the checkout's jurisdiction, as `asset/rail`. */
  readyPairs: ReadonlySet<string>;
}

const PRESENTATION_WORDS: Readonly<Record<PresentationState, string>> = {
  select_method: "Open: the payer chooses a token and network, then starts",
  ready_to_start: "Open: the payer can start",
  awaiting_payment: "Awaiting payment",
  paid: "Paid",
  expired_for_payment: "Expired for payment: the deadline passed unpaid",
  unavailable: "Unavailable: the payer cannot start it",
};

/**
 * The presentation state of a checkout's payer page now (as GET /c/{token}
 * derives it), with its words; null when a service answered a state or status
 * this gateway does not know.
 */
export function presentationOf(
  session: Pick<payinsV1.CheckoutSession, "state" | "pairs">,
  intent: Pick<payinsV1.PayInIntent, "status" | "expiresAt"> | undefined,
  payer: PayerConditions,
  now: Date,
): { code: PresentationState; text: string } | null {
  const state = CHECKOUT_STATE.nameOf(session.state);
  if (!state) return null;
  let started: { status: PayInStatusName; expiresAt: Date } | null = null;
  if (intent) {
    const status = PAY_IN_STATUS.nameOf(intent.status);
    const expiresAt = fromTimestamp(intent.expiresAt);
    if (!status || !expiresAt) return null;
    started = { status, expiresAt };
  }
  const code = presentationState({
    session: { state, pairs: session.pairs.flatMap(({ asset, rail }): CheckoutPair[] => (isAsset(asset) && isRail(rail) ? [{ asset, rail }] : [])) },
    intent: started,
    now,
    merchantActive: payer.merchantActive,
    pairReady: (pair) => payer.readyPairs.has(`${pair.asset}/${pair.rail}`),
  });
  return { code, text: PRESENTATION_WORDS[code] };
}

const PAY_IN_STATUS_WORDS: Readonly<Record<PayInStatusName, string>> = {
  created: "Created",
  awaiting_payment: "Awaiting payment",
  paid: "Paid",
};

/** A pay-in's canonical status: the contract's name and its words. */
export function payInStatusView(status: payinsV1.PayInStatus): { code: string; text: string } {
  const code = PAY_IN_STATUS.nameOf(status);
  return code ? { code, text: PAY_IN_STATUS_WORDS[code] } : { code: "unknown", text: "Unknown" };
}

/** Whether a transfer paid its pay-in: settled, and counting toward it (payins decides). */
export function isSettledPayment(transfer: payinsV1.PayInTransfer): boolean {
  return transfer.state === payinsV1.TransferState.SETTLED && transfer.counts;
}

const TRANSFER_STATE_WORDS: Readonly<Record<TransferStateName, string>> = {
  pending: "seen, not yet settled",
  settled: "settled",
  orphaned: "dropped from the chain",
};

/** Why a transfer does not count, in a merchant's words (the reasons are evidence.ts's). */
const REASON_WORDS: Readonly<Record<Exclude<TransferKind, "counts">, string>> = {
  reversed: "settled, then reversed by a reorganisation of the chain below its settled point; no longer counts",
  dropped: "no longer on the chain",
  wrong_network: "sent on another network",
  wrong_token: "another token",
  dust: "too small to count",
  after_paid: "arrived after the pay-in was paid",
  late: "arrived after the deadline",
  not_counted: "does not count",
};

/** The detail page lists at most this many transfers (5 of them dust), and counts the rest. */
export const MERCHANT_TRANSFER_LIMITS: TransferLimits = { dust: 5, total: 50 };

/** One transfer seen for a pay-in, as the detail page lists it. */
export interface TransferView {
  txHash: string;
  amount: string;
  asset: string;
  pair: string;
  state: string;
  blockTime: TimeView | null;
  counts: boolean;
  /** Why it does not count, in words; empty when it counts. */
  notes: string[];
  /** The amount to give back when it settled after the pay-in was paid (its token, its network, not dust); else null. */
  giveBack: string | null;
}

function transferView(transfer: payinsV1.PayInTransfer, seen: EvidenceTransfer): TransferView {
  const kind = transferKind(seen);
  const stateName = TRANSFER_STATE.nameOf(transfer.state);
  return {
    txHash: transfer.txHash,
    amount: transfer.amount,
    asset: transfer.asset.toUpperCase(),
    pair: pairLabel(transfer.asset, transfer.rail),
    state: stateName ? TRANSFER_STATE_WORDS[stateName] : "unknown",
    blockTime: timeView(transfer.blockTime),
    counts: kind === "counts",
    notes: transferReasons(seen).map((reason) => REASON_WORDS[reason]),
    giveBack: kind === "after_paid" && seen.state === "settled" ? transfer.amount : null,
  };
}

/** What the detail page says of the transfers it does not list. */
export function notListedText(other: number, dust: number): string | null {
  const parts: string[] = [];
  if (other > 0) parts.push(`${other} more ${other === 1 ? "transfer" : "transfers"}`);
  if (dust > 0) parts.push(`${dust} more very small ${dust === 1 ? "transfer" : "transfers"} (zero or below the dust threshold) that ${dust === 1 ? "does" : "do"} not count`);
  if (parts.length === 0) return null;
  return `Not listed here: ${parts.join(" and ")}. The API lists every transfer of this pay-in.`;
}

/** A checkout as a row of the history, or the detail page. */
export interface CheckoutRow {
  uuid: string;
  createdAt: TimeView | null;
  reference: string | null;
  description: string | null;
  amount: string;
  pairs: string[];
  jurisdiction: string;
  state: MerchantCheckoutState;
  stateText: string;
  /** The presentation state of the payer's page now; null when not known. */
  presentation: { code: PresentationState; text: string } | null;
  /** Only an open checkout nobody started can be disabled. */
  disablable: boolean;
  payIn: {
    uuid: string;
    status: { code: string; text: string };
    pair: string;
    expectedAmount: string;
    address: string | null;
    expiresAt: TimeView | null;
  } | null;
  /** Hashes of the settled transactions that count toward the pay-in. */
  settledTxHashes: string[];
  receivedAmount: string | null;
  pendingAmount: string | null;
  /** What settled after the pay-in was paid and is to be given back, in its token (payins' sum over every transfer); null when nothing did. */
  afterPaidAmount: string | null;
  /** The transfers listed, oldest block first (at most MERCHANT_TRANSFER_LIMITS). */
  transfers: TransferView[];
  /** The transfers seen but not listed, in words; null when every one is listed. */
  transfersNotListed: string | null;
}

/** A row from a session, its intent and the intent's transfers. */
export function checkoutRow(
  session: payinsV1.CheckoutSession,
  intent: payinsV1.PayInIntent | undefined,
  transfers: payinsV1.ListPayInTransfersResponse | undefined,
  payer: PayerConditions,
  now: Date,
): CheckoutRow {
  const state = merchantCheckoutState(session, intent, now);
  const seen = transfers?.transfers ?? [];
  const evidence = transfers ? evidenceOf(transfers) : null;
  const read = seen.map((transfer) => ({ transfer, evidence: evidenceTransfer(transfer) }));
  const bounded = boundTransfers(read, (t) => transferKind(t.evidence), MERCHANT_TRANSFER_LIMITS);
  const unread = evidence ? unreadTransfers(evidence) : { dust: 0, other: 0 };
  return {
    uuid: session.checkoutUuid,
    createdAt: timeView(session.createdAt),
    reference: session.reference ?? null,
    description: session.description ?? null,
    amount: session.amount,
    pairs: session.pairs.map((pair) => pairLabel(pair.asset, pair.rail)),
    jurisdiction: session.jurisdiction,
    state,
    stateText: STATE_WORDS[state],
    presentation: presentationOf(session, intent, payer, now),
    disablable: session.state === CheckoutState.OPEN && !intent,
    payIn: intent
      ? {
          uuid: intent.intentUuid,
          status: payInStatusView(intent.status),
          pair: pairLabel(intent.asset, intent.rail),
          expectedAmount: intent.expectedAmount,
          address: intent.address ?? null,
          expiresAt: timeView(intent.expiresAt),
        }
      : null,
    settledTxHashes: [...new Set(seen.filter(isSettledPayment).map((t) => t.txHash))],
    receivedAmount: transfers ? transfers.receivedAmount : null,
    pendingAmount: transfers ? transfers.pendingAmount : null,
    afterPaidAmount: evidence && isPositive(evidence.afterPaidAmount) ? evidence.afterPaidAmount : null,
    transfers: bounded.listed.map((t) => transferView(t.transfer, t.evidence)),
    transfersNotListed: notListedText(bounded.more + unread.other, bounded.moreDust + unread.dust),
  };
}

export type RowDeps = Pick<AppDeps, "payins" | "allocation" | "now">;

/** The merchant whose checkouts are shown, and whether it is active (the payer's page depends on it). */
export interface RowMerchant {
  uuid: string;
  active: boolean;
}

/** The area's merchant as the rows need it. */
export function rowMerchant(area: Area): RowMerchant {
  return { uuid: area.merchantUuid, active: area.merchant.status === merchantsV1.MerchantStatus.ACTIVE };
}

/**
 * The payer conditions of the merchant's checkouts, by the jurisdiction of
 * their sale: a pair's readiness there (its crypto.payin rule and provider
 * binding included, as the payer's page asks it) is asked of allocation only
 * for a jurisdiction where a checkout nobody started may show it (the merchant
 * active), once per jurisdiction.
 */
async function payerConditions(
  deps: RowDeps,
  merchant: RowMerchant,
  sessions: readonly Pick<payinsV1.CheckoutSession, "state" | "intentUuid" | "jurisdiction">[],
): Promise<(jurisdiction: string) => PayerConditions> {
  const open = merchant.active ? sessions.filter((s) => s.state === CheckoutState.OPEN && !s.intentUuid) : [];
  const ready = new Map(
    await Promise.all(
      [...new Set(open.map((s) => s.jurisdiction))].map(async (jurisdiction) => {
        const { pairs } = await deps.allocation.getReadiness({ merchantUuid: merchant.uuid, pairs: [], jurisdiction });
        return [jurisdiction, new Set(pairs.filter((p) => p.ready).map((p) => `${p.asset}/${p.rail}`))] as const;
      }),
    ),
  );
  return (jurisdiction) => ({ merchantActive: merchant.active, readyPairs: ready.get(jurisdiction) ?? new Set() });
}

/** The transfers of an intent of the merchant (its evidence). */
function transfersOf(deps: RowDeps, merchantUuid: string, intentUuid: string) {
  return deps.payins.listPayInTransfers({ merchantUuid, intentUuid });
}

/** Rows for a page of sessions: each started one's intent and evidence read alongside. */
export async function checkoutRows(deps: RowDeps, merchant: RowMerchant, sessions: readonly payinsV1.CheckoutSession[]): Promise<CheckoutRow[]> {
  const now = deps.now();
  const merchantUuid = merchant.uuid;
  const [payer, rows] = await Promise.all([
    payerConditions(deps, merchant, sessions),
    Promise.all(
      sessions.map(async (session) => {
        if (!session.intentUuid) return { session, intent: undefined, transfers: undefined };
        const intentUuid = session.intentUuid;
        const [{ intent }, transfers] = await Promise.all([deps.payins.getPayInIntent({ merchantUuid, intentUuid }), transfersOf(deps, merchantUuid, intentUuid)]);
        return { session, intent, transfers };
      }),
    ),
  ]);
  return rows.map(({ session, intent, transfers }) => checkoutRow(session, intent, transfers, payer(session.jurisdiction), now));
}

/** The detail of one session of the merchant (its intent and evidence included). */
export async function checkoutDetail(deps: RowDeps, merchant: RowMerchant, checkoutUuid: string): Promise<CheckoutRow> {
  const { session, intent } = await deps.payins.getCheckoutSession({ merchantUuid: merchant.uuid, checkoutUuid });
  if (!session) throw new Error("payins answered without the checkout session");
  const [transfers, payer] = await Promise.all([
    intent ? transfersOf(deps, merchant.uuid, intent.intentUuid) : undefined,
    payerConditions(deps, merchant, [{ state: session.state, intentUuid: intent?.intentUuid, jurisdiction: session.jurisdiction }]),
  ]);
  return checkoutRow(session, intent, transfers, payer(session.jurisdiction), deps.now());
}
