/** Every reason the merchants service fails with. */
export enum MerchantsReason {
  InvalidArgument = "INVALID_ARGUMENT",
  MerchantNotFound = "MERCHANT_NOT_FOUND",
  TransitionNotAllowed = "MERCHANT_TRANSITION_NOT_ALLOWED",
  /** The merchant is closed (terminal); its configuration no longer changes. */
  MerchantClosed = "MERCHANT_CLOSED",
  /** The open rule version already has the requested effect. */
  RuleUnchanged = "RULE_UNCHANGED",
  /** The merchant's open policy for the scope already has the requested effect. */
  PolicyUnchanged = "POLICY_UNCHANGED",
  ProviderNotFound = "PROVIDER_NOT_FOUND",
  ProviderNameTaken = "PROVIDER_NAME_TAKEN",
  /** A connection to the provider exists with another secret reference: rotate it instead. */
  ConnectionExists = "CONNECTION_EXISTS",
  /** No such connection, or it belongs to another merchant. */
  ConnectionNotFound = "CONNECTION_NOT_FOUND",
  /** No rule version with the uuid. */
  RuleNotFound = "RULE_NOT_FOUND",
  /** No such policy version, or it belongs to another merchant. */
  PolicyNotFound = "POLICY_NOT_FOUND",
  /** No such provider binding, or it belongs to another merchant. */
  BindingNotFound = "BINDING_NOT_FOUND",
  /** The identity is not a member of the merchant. */
  MemberNotFound = "MEMBER_NOT_FOUND",
  SecretReferenceUnchanged = "SECRET_REFERENCE_UNCHANGED",
  /** A versioned write lost a race twice in a row; the caller may retry. */
  ConcurrentChange = "CONCURRENT_CHANGE",
  /** Nothing vouches for the actor of a change: no assertion from identity where one is needed, or one that does not verify. */
  Forbidden = "FORBIDDEN",
}
