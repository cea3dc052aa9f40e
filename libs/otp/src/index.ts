import { base32nopad } from "@scure/base";
import { generateSync, verifySync } from "otplib";

/**
 * The platform's one-time passwords: otplib's TOTP (RFC 6238) with the
 * parameters authenticator apps assume — HMAC-SHA-1, 30-second steps from the
 * Unix epoch, 6 digits — and a window of one step either side. Secrets are raw
 * bytes or their base32 text (as an otpauth URI carries them).
 */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one (clock drift and typing time). */
export const TOTP_WINDOW_STEPS = 1;

export type TotpSecret = Uint8Array | string;

const FIXED = { algorithm: "sha1", digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS } as const;
const CODE = /^[0-9]{6}$/;

/** True for something shaped like a TOTP code (6 ASCII digits). */
export function looksLikeTotpCode(code: string): boolean {
  return CODE.test(code);
}

/** The TOTP time step that `at` falls in. */
export function totpStep(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/** The code of `secret` for time step `step`. */
export function totpCodeOfStep(secret: TotpSecret, step: number): string {
  return generateSync({ ...FIXED, secret, epoch: step * TOTP_PERIOD_SECONDS });
}

/** The code of `secret` at time `at`. */
export function totpCode(secret: TotpSecret, at: Date): string {
  return totpCodeOfStep(secret, totpStep(at));
}

/**
 * The step whose code `code` is, within the window around `at` and after
 * `afterStep` (replay protection: a step once accepted is passed back here);
 * null when there is none or `code` is no code. When one code is the code of
 * two steps in the window (rare), the newer wins: recording the older would let
 * the code be used once more.
 */
export function matchTotpStep(secret: TotpSecret, code: string, at: Date, afterStep: number | null): number | null {
  if (!looksLikeTotpCode(code)) return null;
  const current = totpStep(at);
  const last = current + TOTP_WINDOW_STEPS;
  const options = { ...FIXED, secret, token: code, epoch: Math.floor(at.getTime() / 1000), epochTolerance: TOTP_WINDOW_STEPS * TOTP_PERIOD_SECONDS };
  let matched: number | null = null;
  let after = afterStep !== null && afterStep >= 0 ? afterStep : undefined;
  // otplib answers the oldest match; ask again past it until none is left. It
  // refuses an afterTimeStep beyond the window, where nothing can match anyway.
  while (after === undefined || after < last) {
    const result = verifySync({ ...options, afterTimeStep: after });
    if (!result.valid) break;
    matched = after = current + result.delta;
  }
  return matched;
}

/**
 * The otpauth:// URI an authenticator app scans, every parameter spelt out:
 * `otpauth://totp/<issuer>:<account>?secret=<base32>&issuer=<issuer>&algorithm=SHA1&digits=6&period=30`.
 * (otplib's generateURI leaves the default parameters out and escapes the `@`
 * of an email; enrolled apps and the tests know this form.)
 */
export function totpUri(issuer: string, account: string, secret: Uint8Array): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account).replace(/%40/g, "@")}`;
  const query = `secret=${base32nopad.encode(secret)}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=${TOTP_DIGITS}&period=${TOTP_PERIOD_SECONDS}`;
  return `otpauth://totp/${label}?${query}`;
}
