/** Every reason the identity service fails with. */
export enum IdentityReason {
  InvalidArgument = "INVALID_ARGUMENT",
  /** The merchant already has an active machine credential (at most one, docs/api.md "Limits"). */
  CredentialAlreadyActive = "CREDENTIAL_ALREADY_ACTIVE",
  /**
   * Malformed, unknown, revoked or expired token, an MFA challenge token used as a
   * session, a session of a disabled or locked identity: deliberately one reason
   * for all of them.
   */
  InvalidToken = "AUTH_INVALID_TOKEN",
  /** Unknown email, wrong password, disabled or locked identity, wrong MFA code: one reason for all. */
  InvalidCredentials = "AUTH_INVALID_CREDENTIALS",
  /** Too many sign-in attempts for an email or from a client IP. */
  RateLimited = "RATE_LIMITED",
  /** The caller lacks the permission the operation needs (or is a machine). */
  Forbidden = "FORBIDDEN",
  /**
   * The caller's session has not completed MFA, and the operation (or, for a
   * privileged identity, any operation but enrolling TOTP) needs it.
   */
  MfaRequired = "MFA_REQUIRED",
  /** The session completed MFA, but longer ago than the operation allows (15 minutes). */
  MfaRecentRequired = "MFA_RECENT_REQUIRED",
  IdentityNotFound = "IDENTITY_NOT_FOUND",
  IdentityEmailTaken = "IDENTITY_EMAIL_TAKEN",
  IdentityAlreadyDisabled = "IDENTITY_ALREADY_DISABLED",
  IdentityAlreadyLocked = "IDENTITY_ALREADY_LOCKED",
  /** Activating an identity that is active. */
  IdentityAlreadyActive = "IDENTITY_ALREADY_ACTIVE",
  RoleNotHeld = "ROLE_NOT_HELD",
  /** Removing platform_admin would leave no active platform_admin. */
  LastPlatformAdmin = "LAST_PLATFORM_ADMIN",
  /** Bootstrap refused: some identity already holds platform_admin. */
  AdminExists = "ADMIN_EXISTS",
  SessionNotFound = "SESSION_NOT_FOUND",
  /** EnrollTotp after enrolment was confirmed. */
  TotpAlreadyEnrolled = "TOTP_ALREADY_ENROLLED",
  /** ConfirmTotp without a pending enrolment. */
  TotpNotPending = "TOTP_NOT_PENDING",
  /** ConfirmTotp with a code that does not match the pending secret. */
  TotpCodeInvalid = "TOTP_CODE_INVALID",
  /** Rotate without an active credential. */
  NoActiveCredential = "NO_ACTIVE_CREDENTIAL",
  CredentialAlreadyRevoked = "CREDENTIAL_ALREADY_REVOKED",
  /** Unknown credential, or one of another merchant. */
  CredentialNotFound = "CREDENTIAL_NOT_FOUND",
}
