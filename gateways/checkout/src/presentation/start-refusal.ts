import type { PublicErrorCode } from "@payin/http";

/** How a refused start is answered: a page with a code of the public catalogue and words for the payer. */
export interface StartRefusal {
  code: PublicErrorCode;
  title: string;
  message: string;
}

const NO_LONGER: StartRefusal = {
  code: "CONFLICT",
  title: "This payment link is no longer available",
  message: "The seller has withdrawn this payment link, so no payment can be started with it. Nothing was charged. Ask the seller for a new link.",
};

const NOT_NOW: StartRefusal = {
  code: "CONFLICT",
  title: "Payment is unavailable right now",
  message: "The seller cannot take this payment at the moment. Nothing was charged. Please try again later, or contact the seller.",
};

const BAD_CHOICE: StartRefusal = {
  code: "VALIDATION_ERROR",
  title: "Choose how you want to pay",
  message: "Go back to the payment page, choose one of the offered tokens and networks, and start the payment again.",
};

const BUSY: StartRefusal = {
  code: "CONFLICT",
  title: "Your payment is being prepared",
  message:
    "The payment is being started right now. Go back to the payment page in a moment: it will show where to pay. If it still offers to start, start again: that never creates a second payment.",
};

/** The refusals of payins' StartCheckout, by reason, as the payer reads them. */
const REFUSALS: Readonly<Record<string, StartRefusal>> = {
  CHECKOUT_UNAVAILABLE: NO_LONGER,
  VALIDATION_ERROR: BAD_CHOICE,
  INVALID_ARGUMENT: BAD_CHOICE,
  MERCHANT_NOT_ACTIVE: NOT_NOW,
  PAYIN_NOT_READY: NOT_NOW,
  PAYIN_NOT_ALLOWED: NOT_NOW,
  WALLET_NOT_READY: NOT_NOW,
  OPERATING_PROFILE_MISSING: NOT_NOW,
  IDEMPOTENCY_KEY_IN_USE: BUSY,
};

/**
 * The page of a start payins refused with `reason`; undefined for a reason
 * that is not a refusal of the start itself (unknown token, a fault), which
 * is answered as any other error.
 */
export function startRefusal(reason: string | undefined): StartRefusal | undefined {
  const key = reason ?? "";
  return Object.hasOwn(REFUSALS, key) ? REFUSALS[key] : undefined;
}

/** The refusal of a start form whose `pair` is not one of routing's pairs. */
export function badPairRefusal(): StartRefusal {
  return BAD_CHOICE;
}
