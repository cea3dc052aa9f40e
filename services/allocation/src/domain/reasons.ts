/** Every reason the allocation service fails with. */
export enum AllocationReason {
  InvalidArgument = "INVALID_ARGUMENT",
  WalletXpubInvalid = "WALLET_XPUB_INVALID",
  WalletNotFound = "WALLET_NOT_FOUND",
  WalletNotReady = "WALLET_NOT_READY",
  WalletXpubInUse = "WALLET_XPUB_IN_USE",
  MerchantNotFound = "MERCHANT_NOT_FOUND",
  /** The rail's chain observation is halted: nothing on it could be credited, so no address is handed out for it. */
  PayinNotReady = "PAYIN_NOT_READY",
  /** Nothing vouches for a person allowed to make the change (a wallet is set by a person with the permission). */
  Forbidden = "FORBIDDEN",
  /** The person's second factor is not recent enough for the change. */
  MfaRequired = "MFA_REQUIRED",
}
