/** Every reason the identity service fails with. */
export enum IdentityReason {
  InvalidArgument = "INVALID_ARGUMENT",
  /** The merchant already has an active machine credential (at most one, spec "Limits"). */
  CredentialAlreadyActive = "CREDENTIAL_ALREADY_ACTIVE",
  /** Malformed, unknown, revoked or wrong token: deliberately one reason for all of them. */
  InvalidToken = "AUTH_INVALID_TOKEN",
}
