import { randomBytes } from "node:crypto";
import { matchTotpStep, totpUri } from "@payin/otp";

export { looksLikeTotpCode } from "@payin/otp";

/**
 * TOTP second factors: the platform's TOTP (@payin/otp: otplib with HMAC-SHA-1,
 * 30-second steps, 6 digits). A code is accepted for the current step and one
 * step either side; a step once accepted for a factor is never accepted again
 * (the caller stores the last accepted step and passes it back).
 */
/** Size of a new TOTP secret (RFC 4226 recommends 160 bits). */
export const TOTP_SECRET_BYTES = 20;
const ISSUER = "Payin";

/**
 * The step whose code `code` is, among the current step ±1 at `at`, and newer
 * than `lastUsedStep`; null when there is none (the newest match wins, see
 * matchTotpStep). The caller must still record the returned step atomically,
 * only if it is still newer than the stored one, so that two concurrent uses of
 * one code cannot both pass.
 */
export function matchTotp(secret: Buffer, code: string, at: Date, lastUsedStep: number | null): number | null {
  return matchTotpStep(secret, code, at, lastUsedStep);
}

/** A new random TOTP secret. */
export function generateTotpSecret(): Buffer {
  return randomBytes(TOTP_SECRET_BYTES);
}

/**
 * The otpauth:// URI authenticator apps scan:
 * `otpauth://totp/Payin:<email>?secret=<base32>&issuer=Payin&algorithm=SHA1&digits=6&period=30`.
 */
export function otpauthUri(email: string, secret: Buffer): string {
  return totpUri(ISSUER, email, secret);
}
