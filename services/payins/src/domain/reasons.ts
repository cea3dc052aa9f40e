/** Every reason the payins service fails with on its own account. */
export enum PayinsReason {
  ValidationError = "VALIDATION_ERROR",
  IdempotencyKeyInvalid = "IDEMPOTENCY_KEY_INVALID",
  IdempotencyKeyReused = "IDEMPOTENCY_KEY_REUSED",
  IdempotencyKeyInUse = "IDEMPOTENCY_KEY_IN_USE",
  MerchantNotActive = "MERCHANT_NOT_ACTIVE",
  PayinNotAllowed = "PAYIN_NOT_ALLOWED",
  OperatingProfileMissing = "OPERATING_PROFILE_MISSING",
  /** The (merchant, pair) fails a configuration reason of readiness no other code covers; the message names it. */
  PayinNotReady = "PAYIN_NOT_READY",
  PayInIntentNotFound = "PAY_IN_INTENT_NOT_FOUND",
}

/**
 * The reasons of the hosted checkout sessions. They are not codes of the public
 * catalogue (`PUBLIC_ERRORS`): the checkout gateway answers them itself (a
 * generic 404 for CHECKOUT_NOT_FOUND), and any other gateway shows them under
 * the generic code of their status.
 */
export enum CheckoutReason {
  /** No session for this token, or none of this merchant with this uuid; says nothing more. */
  CheckoutNotFound = "CHECKOUT_NOT_FOUND",
  /** Only an open session that no start has used can be disabled. */
  CheckoutNotDisablable = "CHECKOUT_NOT_DISABLABLE",
  /** The session is disabled: its link starts nothing. */
  CheckoutUnavailable = "CHECKOUT_UNAVAILABLE",
}
