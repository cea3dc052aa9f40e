/** Every reason the merchants service fails with. */
export enum MerchantsReason {
  InvalidArgument = "INVALID_ARGUMENT",
  MerchantNotFound = "MERCHANT_NOT_FOUND",
  TransitionNotAllowed = "MERCHANT_TRANSITION_NOT_ALLOWED",
}
