/** Which limit refused an attempt (see throttle.ts). */
export type ThrottleLimit = "email_client_ip" | "client_ip" | "account_delay" | "account_cap" | "mfa_challenge";

/** Why a password attempt failed: for operators only, never told to the caller. */
export type LoginFailureReason = "unknown_email" | "wrong_password" | "inactive_identity";

/** Why a signed-in person's current password was checked again. */
export type ReauthPurpose = "password_change" | "totp_enrollment";

/** The step an attempt was throttled at: sign-in, its second factor, or a re-check of the password. */
export type ThrottledStep = "login" | "mfa" | ReauthPurpose;

/**
 * What sign-in did, for the security log. Never a password, code, session token
 * or challenge token: only who (when known), from where, and what happened.
 */
export type SecurityEvent =
  | { event: "auth.login.succeeded"; identityUuid: string; clientIp: string; mfaRequired: boolean }
  | { event: "auth.login.failed"; identityUuid: string | null; clientIp: string; reason: LoginFailureReason }
  | { event: "auth.mfa.succeeded"; identityUuid: string; clientIp: string }
  | { event: "auth.mfa.failed"; identityUuid: string; clientIp: string }
  | { event: "auth.reauth.failed"; identityUuid: string; clientIp: string; purpose: ReauthPurpose }
  | {
      event: "auth.throttled";
      identityUuid: string | null;
      clientIp: string;
      step: ThrottledStep;
      limit: ThrottleLimit;
      retryAfterSeconds: number;
    };
