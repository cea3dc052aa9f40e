import { createHash, randomBytes } from "node:crypto";
import { DomainError } from "@payin/errors";
import { base32Encode } from "./base32.js";
import { callerSession } from "./caller.js";
import { IdentityReason } from "./reasons.js";
import { open, seal } from "./secret-box.js";
import type { IdentityDeps, IdentityStore, TotpFactor } from "./stores.js";
import { generateTotpSecret, looksLikeTotpCode, matchTotp, otpauthUri } from "./totp.js";

/** Recovery codes issued at confirmation, each usable once. */
export const RECOVERY_CODE_COUNT = 10;
/** A recovery code is 10 base32 characters (50 bits), shown as two groups of 5. */
const RECOVERY_CODE = /^[A-Z2-7]{10}$/;

/** A new recovery code, e.g. `K7QXM-3FJ2A`. */
export function generateRecoveryCode(): string {
  const text = base32Encode(randomBytes(8)).slice(0, 10);
  return `${text.slice(0, 5)}-${text.slice(5)}`;
}

/**
 * The stored hash of a recovery code, tolerant of case, spaces and hyphens; null
 * when the text cannot be a recovery code.
 */
export function hashRecoveryCode(code: string): Buffer | null {
  const normalized = code.replace(/[\s-]/g, "").toUpperCase();
  if (!RECOVERY_CODE.test(normalized)) return null;
  return createHash("sha256").update(normalized).digest();
}

/** The plaintext TOTP secret of a factor. */
export function factorSecret(totpKey: Buffer, factor: TotpFactor): Buffer {
  return open(totpKey, factor.secretCiphertext, factor.identityUuid);
}

/**
 * Checks a second factor for a confirmed TOTP factor and uses it up: a 6-digit
 * code must match the current step ±1 and be newer than the last step used; any
 * other text is tried as an unused recovery code. Both are recorded atomically,
 * so concurrent uses of the same code cannot both succeed. False when refused.
 */
export async function useSecondFactor(
  identities: IdentityStore,
  totpKey: Buffer,
  factor: TotpFactor,
  code: string,
  now: Date,
): Promise<boolean> {
  if (factor.confirmedAt === null) return false;
  if (looksLikeTotpCode(code)) {
    const step = matchTotp(factorSecret(totpKey, factor), code, now, factor.lastUsedStep);
    return step !== null && (await identities.useTotpStep(factor.identityUuid, step));
  }
  const hash = hashRecoveryCode(code);
  return hash !== null && (await identities.useRecoveryCode(factor.identityUuid, hash, now));
}

/**
 * Starts (or restarts) TOTP enrolment for the caller and returns the otpauth://
 * URI. A pending secret is replaced; after confirmation it fails with
 * TOTP_ALREADY_ENROLLED. The secret is stored sealed with AES-256-GCM.
 */
export async function enrollTotp(deps: IdentityDeps, input: { sessionToken: string }): Promise<{ otpauthUri: string }> {
  const now = deps.clock();
  const { identity } = await callerSession(deps, input.sessionToken, now);
  const secret = generateTotpSecret();
  const sealed = seal(deps.totpKey, secret, identity.identityUuid);
  if (!(await deps.stores.identities.savePendingTotp(identity.identityUuid, sealed, now))) {
    throw new DomainError(IdentityReason.TotpAlreadyEnrolled, "TOTP is already enrolled");
  }
  return { otpauthUri: otpauthUri(identity.email, secret) };
}

/**
 * Confirms the caller's pending TOTP factor with a code from it and returns ten
 * recovery codes, which exist only in this return value (only their SHA-256 is
 * stored). Without a pending factor: TOTP_NOT_PENDING (TOTP_ALREADY_ENROLLED once
 * confirmed); with a wrong code: TOTP_CODE_INVALID. The session itself is not
 * upgraded: MFA counts from the next sign-in.
 */
export async function confirmTotp(deps: IdentityDeps, input: { sessionToken: string; code: string }): Promise<{ recoveryCodes: string[] }> {
  const now = deps.clock();
  const { identity } = await callerSession(deps, input.sessionToken, now);
  const factor = await deps.stores.identities.findTotpFactor(identity.identityUuid);
  if (factor?.confirmedAt) throw new DomainError(IdentityReason.TotpAlreadyEnrolled, "TOTP is already enrolled");
  if (!factor) throw new DomainError(IdentityReason.TotpNotPending, "no TOTP enrolment is pending");
  const step = matchTotp(factorSecret(deps.totpKey, factor), input.code, now, null);
  if (step === null) throw new DomainError(IdentityReason.TotpCodeInvalid, "the code does not match");
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, generateRecoveryCode);
  await deps.stores.transaction(async (tx) => {
    if (!(await tx.identities.confirmTotp(identity.identityUuid, factor.secretCiphertext, step, now))) {
      // Re-enrolled (or confirmed) meanwhile: the code was checked against a secret that is gone.
      throw new DomainError(IdentityReason.TotpNotPending, "the pending TOTP enrolment changed; enrol again");
    }
    await tx.identities.replaceRecoveryCodes(identity.identityUuid, recoveryCodes.map((c) => hashRecoveryCode(c)!), now);
  });
  return { recoveryCodes };
}
