import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { base32nopad } from "@scure/base";
import type { IdentityStore, StoredRecoveryCode } from "./stores.js";

/**
 * Recovery codes are stored neither in clear nor as a bare hash: per code a
 * 16-byte random salt and HMAC-SHA256(pepper, salt ‖ SHA-256(normalized code)).
 * The pepper is derived with HKDF from the TOTP encryption key, so a copy of the
 * database alone cannot test guesses (50 bits per code would not hold against an
 * offline search), and the salt makes every stored value unique, so equal codes
 * of two identities do not show. HMAC over the SHA-256 digest, rather than over
 * the code, lets rows that hold only SHA-256(code) be salted without the code
 * (saltUnsaltedRecoveryCodes).
 */

/** Recovery codes issued per enrolment, each usable once. */
export const RECOVERY_CODE_COUNT = 10;
/** A recovery code is 10 base32 characters (50 bits), shown as two groups of 5. */
const RECOVERY_CODE = /^[A-Z2-7]{10}$/;
export const RECOVERY_CODE_SALT_BYTES = 16;
/** HKDF context of the pepper: a different purpose than sealing TOTP secrets with the same key. */
const PEPPER_INFO = "payin identity recovery-code pepper v1";

/** A new recovery code, e.g. `K7QXM-3FJ2A`. */
export function generateRecoveryCode(): string {
  const text = base32nopad.encode(randomBytes(8)).slice(0, 10);
  return `${text.slice(0, 5)}-${text.slice(5)}`;
}

/**
 * SHA-256 of a recovery code, tolerant of case, spaces and hyphens; null when the
 * text cannot be a recovery code. Never stored as such: see recoveryCodeHash.
 */
export function recoveryCodeDigest(code: string): Buffer | null {
  const normalized = code.replace(/[\s-]/g, "").toUpperCase();
  if (!RECOVERY_CODE.test(normalized)) return null;
  return createHash("sha256").update(normalized).digest();
}

/** The key of the recovery-code HMAC, derived from the TOTP encryption key. */
export function recoveryCodePepper(totpKey: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", totpKey, Buffer.alloc(0), PEPPER_INFO, 32));
}

/** The stored hash of a code's digest under `salt`. */
export function recoveryCodeHash(pepper: Buffer, salt: Buffer, digest: Buffer): Buffer {
  return createHmac("sha256", pepper).update(salt).update(digest).digest();
}

/** The stored form of a code's digest, under a new random salt. */
export function storedRecoveryCode(pepper: Buffer, digest: Buffer): StoredRecoveryCode {
  const salt = randomBytes(RECOVERY_CODE_SALT_BYTES);
  return { salt, codeHash: recoveryCodeHash(pepper, salt, digest) };
}

/** RECOVERY_CODE_COUNT new codes, for showing once, and their stored forms. */
export function issueRecoveryCodes(totpKey: Buffer): { codes: string[]; stored: StoredRecoveryCode[] } {
  const pepper = recoveryCodePepper(totpKey);
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, generateRecoveryCode);
  return { codes, stored: codes.map((code) => storedRecoveryCode(pepper, recoveryCodeDigest(code)!)) };
}

/**
 * Uses up one of the identity's unused recovery codes: every unused code is
 * compared in constant time (all of them, so the time does not tell which one
 * matched), then the match is marked used by a conditional update, so concurrent
 * uses of one code cannot both succeed. False when the text matches none.
 */
export async function useRecoveryCode(identities: IdentityStore, totpKey: Buffer, identityUuid: string, code: string, now: Date): Promise<boolean> {
  const digest = recoveryCodeDigest(code);
  if (digest === null) return false;
  const pepper = recoveryCodePepper(totpKey);
  let match: Buffer | null = null;
  for (const stored of await identities.listUnusedRecoveryCodes(identityUuid)) {
    const candidate = recoveryCodeHash(pepper, stored.salt, digest);
    if (candidate.length === stored.codeHash.length && timingSafeEqual(candidate, stored.codeHash)) match = stored.codeHash;
  }
  return match !== null && (await identities.useRecoveryCode(identityUuid, match, now));
}

/**
 * Salts every recovery code still stored as SHA-256(code) alone: the stored
 * digest becomes HMAC(pepper, salt ‖ digest) under a new salt, the same form a
 * new code gets, so these codes keep working and the bare digest is gone. Run by
 * the service at start after its migrations; safe to run again or on several
 * replicas at once. Answers how many rows it salted.
 */
export async function saltUnsaltedRecoveryCodes(identities: IdentityStore, totpKey: Buffer, batch = 500): Promise<number> {
  const pepper = recoveryCodePepper(totpKey);
  let salted = 0;
  for (;;) {
    const rows = await identities.listUnsaltedRecoveryCodes(batch);
    if (rows.length === 0) return salted;
    for (const row of rows) {
      if (await identities.saltRecoveryCode(row.identityUuid, row.digest, storedRecoveryCode(pepper, row.digest))) salted++;
    }
  }
}
