/**
 * Checkouts as the merchant's history and detail pages show them: a
 * merchant-facing state (the session's state and its pay-in intent), the
 * pay-in's canonical status, its deposit address, and the hash of each
 * settled transaction that counts toward it.
 */
import { payinsV1 } from "@payin/proto";
import { fromTimestamp } from "@payin/rpc";
import type { AppDeps } from "../../deps.js";
import { pairLabel } from "../../presentation/readiness-reasons.js";
import { timeView, type TimeView } from "./area.js";

const { CheckoutState, PayInStatus, TransferState } = payinsV1;

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

const PAY_IN_STATUS_NAMES: Readonly<Record<number, string>> = {
  [PayInStatus.CREATED]: "created",
  [PayInStatus.AWAITING_PAYMENT]: "awaiting_payment",
  [PayInStatus.PAID]: "paid",
};

const PAY_IN_STATUS_WORDS: Readonly<Record<string, string>> = {
  created: "Created",
  awaiting_payment: "Awaiting payment",
  paid: "Paid",
};

/** A pay-in's canonical status: the contract's name and its words. */
export function payInStatusView(status: payinsV1.PayInStatus): { code: string; text: string } {
  const code = PAY_IN_STATUS_NAMES[status] ?? "unknown";
  return { code, text: PAY_IN_STATUS_WORDS[code] ?? "Unknown" };
}

/** Whether a transfer counts toward its pay-in and is final: settled, in time, the right token on the right network, not dust. */
export function isSettledPayment(transfer: payinsV1.PayInTransfer): boolean {
  return transfer.state === TransferState.SETTLED && !transfer.late && !transfer.wrongNetwork && !transfer.wrongToken && !transfer.dust;
}

const TRANSFER_STATE_WORDS: Readonly<Record<number, string>> = {
  [TransferState.PENDING]: "seen, not yet settled",
  [TransferState.SETTLED]: "settled",
  [TransferState.ORPHANED]: "dropped from the chain",
};

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
}

function transferView(transfer: payinsV1.PayInTransfer): TransferView {
  const notes: string[] = [];
  if (transfer.late) notes.push("arrived after the deadline");
  if (transfer.wrongNetwork) notes.push("sent on another network");
  if (transfer.wrongToken) notes.push("another token");
  if (transfer.dust) notes.push("too small to count");
  return {
    txHash: transfer.txHash,
    amount: transfer.amount,
    asset: transfer.asset.toUpperCase(),
    pair: pairLabel(transfer.asset, transfer.rail),
    state: TRANSFER_STATE_WORDS[transfer.state] ?? "unknown",
    blockTime: timeView(transfer.blockTime),
    counts: notes.length === 0 && transfer.state !== TransferState.ORPHANED,
    notes,
  };
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
  transfers: TransferView[];
}

/** A row from a session, its intent and the intent's transfers. */
export function checkoutRow(
  session: payinsV1.CheckoutSession,
  intent: payinsV1.PayInIntent | undefined,
  transfers: payinsV1.ListPayInTransfersResponse | undefined,
  now: Date,
): CheckoutRow {
  const state = merchantCheckoutState(session, intent, now);
  const seen = transfers?.transfers ?? [];
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
    transfers: seen.map(transferView),
  };
}

export type RowDeps = Pick<AppDeps, "payins" | "now">;

/** The transfers of an intent of the merchant (its evidence). */
function transfersOf(deps: RowDeps, merchantUuid: string, intentUuid: string) {
  return deps.payins.listPayInTransfers({ merchantUuid, intentUuid });
}

/** Rows for a page of sessions: each started one's intent and evidence read alongside. */
export async function checkoutRows(deps: RowDeps, merchantUuid: string, sessions: readonly payinsV1.CheckoutSession[]): Promise<CheckoutRow[]> {
  const now = deps.now();
  return Promise.all(
    sessions.map(async (session) => {
      if (!session.intentUuid) return checkoutRow(session, undefined, undefined, now);
      const intentUuid = session.intentUuid;
      const [{ intent }, transfers] = await Promise.all([deps.payins.getPayInIntent({ merchantUuid, intentUuid }), transfersOf(deps, merchantUuid, intentUuid)]);
      return checkoutRow(session, intent, transfers, now);
    }),
  );
}

/** The detail of one session of the merchant (its intent and evidence included). */
export async function checkoutDetail(deps: RowDeps, merchantUuid: string, checkoutUuid: string): Promise<CheckoutRow> {
  const { session, intent } = await deps.payins.getCheckoutSession({ merchantUuid, checkoutUuid });
  if (!session) throw new Error("payins answered without the checkout session");
  const transfers = intent ? await transfersOf(deps, merchantUuid, intent.intentUuid) : undefined;
  return checkoutRow(session, intent, transfers, deps.now());
}
