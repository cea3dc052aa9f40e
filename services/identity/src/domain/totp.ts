import { randomBytes, timingSafeEqual } from "node:crypto";
import { base32Encode, hotp, TOTP_DIGITS, TOTP_PERIOD_SECONDS, totpStep } from "@payin/otp";

/**
 * TOTP second factors (codes from @payin/otp: HMAC-SHA-1, 30-second steps, 6
 * digits). A code is accepted for the current step and one step either
 * side; a step once accepted for a factor is never accepted again (the caller
 * stores the last accepted step and passes it back).
 */
/** Steps accepted either side of the current one. */
export const TOTP_WINDOW_STEPS = 1;
/** Size of a new TOTP secret (RFC 4226 recommends 160 bits). */
export const TOTP_SECRET_BYTES = 20;
const ISSUER = "Payin";

/** True for something shaped like a TOTP code (6 ASCII digits). */
export function looksLikeTotpCode(code: string): boolean {
  return /^[0-9]{6}$/.test(code);
}

/**
 * The step whose code `code` is, among the current step ±1 at `at`, and newer
 * than `lastUsedStep`; null when there is none. Every candidate is compared in
 * constant time. The caller must still record the returned step atomically, only
 * if it is still newer than the stored one, so that two concurrent uses of one
 * code cannot both pass.
 */
export function matchTotp(secret: Buffer, code: string, at: Date, lastUsedStep: number | null): number | null {
  if (!looksLikeTotpCode(code)) return null;
  const presented = Buffer.from(code);
  const current = totpStep(at);
  let matched: number | null = null;
  // The newest matching step wins: one code can (rarely) be the code of two steps
  // in the window, and recording the older one would let it be used once more.
  for (let step = Math.max(0, current - TOTP_WINDOW_STEPS); step <= current + TOTP_WINDOW_STEPS; step++) {
    const equal = timingSafeEqual(Buffer.from(hotp(secret, step)), presented);
    if (equal && (lastUsedStep === null || step > lastUsedStep)) matched = step;
  }
  return matched;
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
  const label = `${ISSUER}:${encodeURIComponent(email).replace(/%40/g, "@")}`;
  const query = `secret=${base32Encode(secret)}&issuer=${ISSUER}&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_PERIOD_SECONDS}`;
  return `otpauth://totp/${label}?${query}`;
}
