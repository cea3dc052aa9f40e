import type { Asset, Rail } from "@payin/money";
import type { CheckoutStateName, PayInStatusName } from "@payin/proto";

/** An asset and the rail it is paid on, as a checkout offers it. */
export interface CheckoutPair {
  asset: Asset;
  rail: Rail;
}

/** Where a checkout session stands, as payins reads it (`paid` once its intent is paid). */
export type CheckoutState = CheckoutStateName;

/** The canonical status of a pay-in intent. There is no expired status. */
export type PayInStatus = PayInStatusName;

/** What the payer's page shows; derived, never stored. */
export type PresentationState = "select_method" | "ready_to_start" | "awaiting_payment" | "paid" | "expired_for_payment" | "unavailable";

export interface PresentationInput {
  session: { state: CheckoutState; pairs: readonly CheckoutPair[] };
  /** The session's intent; null before a start created it. */
  intent: { status: PayInStatus; expiresAt: Date } | null;
  now: Date;
  /** Whether the merchant is active (from the merchants service). */
  merchantActive: boolean;
  /** Whether a pair is Ready for the merchant now (from allocation's readiness). */
  pairReady: (pair: CheckoutPair) => boolean;
}

/**
 * Whether an unpaid intent's deadline has passed. A transfer in a block at
 * exactly `expires_at` still counts, so the deadline instant itself has not.
 */
export function deadlinePassed(expiresAt: Date, now: Date): boolean {
  return now.getTime() > expiresAt.getTime();
}

/**
 * The presentation state of a session (docs/checkout.md, "Payer pages"):
 * - once an intent exists it alone decides: `paid` when its canonical status is
 *   paid (even when the payment landed, or is read, after the deadline),
 *   `expired_for_payment` once the deadline has passed unpaid, and
 *   `awaiting_payment` up to and including the deadline instant. The merchant's
 *   status and readiness do not change it: the payer may already have paid,
 *   and the intent is canonical.
 * - before a start: `unavailable` when the session is not open (disabled), the
 *   merchant is not active or no allowed pair is Ready; `ready_to_start` with
 *   one Ready pair, `select_method` with several.
 * Never changes the intent.
 */
export function presentationState(input: PresentationInput): PresentationState {
  const { session, intent, now } = input;
  if (intent) {
    if (intent.status === "paid") return "paid";
    return deadlinePassed(intent.expiresAt, now) ? "expired_for_payment" : "awaiting_payment";
  }
  if (session.state !== "open" || !input.merchantActive) return "unavailable";
  const ready = readyPairs(input);
  if (ready.length === 0) return "unavailable";
  return ready.length === 1 ? "ready_to_start" : "select_method";
}

/** The session's pairs a payer may start with now: the Ready ones, in the merchant's order. */
export function readyPairs(input: Pick<PresentationInput, "session" | "pairReady">): CheckoutPair[] {
  return input.session.pairs.filter((pair) => input.pairReady(pair));
}
