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
