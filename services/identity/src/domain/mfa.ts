import { DomainError } from "@payin/errors";
import { recordChange } from "./audit-outbox.js";
import { callerSession } from "./caller.js";
import { verifyCurrentPassword } from "./own-sessions.js";
import { IdentityReason } from "./reasons.js";
import { issueRecoveryCodes, useRecoveryCode } from "./recovery-codes.js";
import { open, seal } from "@payin/sealing";
import type { IdentityDeps, IdentityStore, TotpFactor } from "./stores.js";
import { generateTotpSecret, looksLikeTotpCode, matchTotp, otpauthUri } from "./totp.js";

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
  return useRecoveryCode(identities, totpKey, factor.identityUuid, code, now);
}

/**
 * Starts (or restarts) TOTP enrolment for the caller and returns the otpauth://
 * URI. The current password is checked first (a wrong one is
 * AUTH_INVALID_CREDENTIALS): a session alone, e.g. one left open, must not bind a
 * second factor the owner does not hold. A pending secret is replaced; after
 * confirmation it fails with TOTP_ALREADY_ENROLLED. The secret is stored sealed
 * with AES-256-GCM.
 */
export async function enrollTotp(
  deps: IdentityDeps,
  input: { sessionToken: string; currentPassword: string; clientIp: string },
): Promise<{ otpauthUri: string }> {
  const now = deps.clock();
  const { identity } = await callerSession(deps, input.sessionToken, now);
  const enrolled = await deps.stores.identities.findTotpFactor(identity.identityUuid);
  if (enrolled?.confirmedAt) throw new DomainError(IdentityReason.TotpAlreadyEnrolled, "TOTP is already enrolled");
  await verifyCurrentPassword(deps, identity, { password: input.currentPassword, clientIp: input.clientIp, purpose: "totp_enrollment" }, now);
  const secret = generateTotpSecret();
  const sealed = seal(deps.totpKey, secret, identity.identityUuid);
  await deps.stores.transaction(async (tx) => {
    if (!(await tx.identities.savePendingTotp(identity.identityUuid, sealed, now))) {
      throw new DomainError(IdentityReason.TotpAlreadyEnrolled, "TOTP is already enrolled");
    }
    await recordChange(tx, deps, identity, { action: "identity.totp.start", targetType: "identity", targetUuid: identity.identityUuid }, now);
  });
  return { otpauthUri: otpauthUri(identity.email, secret) };
}

/**
 * Confirms the caller's pending TOTP factor with a code from it and returns ten
 * recovery codes, which exist only in this return value (only salted keyed
 * hashes of them are stored, see recovery-codes.ts). Without a pending factor:
 * TOTP_NOT_PENDING (TOTP_ALREADY_ENROLLED once confirmed); with a wrong code:
 * TOTP_CODE_INVALID. Every other session of the identity ends (one opened by
 * whoever else knew the password must not outlive the new factor). The session
 * itself is not upgraded: MFA counts from the next sign-in.
 */
export async function confirmTotp(deps: IdentityDeps, input: { sessionToken: string; code: string }): Promise<{ recoveryCodes: string[] }> {
  const now = deps.clock();
  const { session, identity } = await callerSession(deps, input.sessionToken, now);
  const factor = await deps.stores.identities.findTotpFactor(identity.identityUuid);
  if (factor?.confirmedAt) throw new DomainError(IdentityReason.TotpAlreadyEnrolled, "TOTP is already enrolled");
  if (!factor) throw new DomainError(IdentityReason.TotpNotPending, "no TOTP enrolment is pending");
  const step = matchTotp(factorSecret(deps.totpKey, factor), input.code, now, null);
  if (step === null) throw new DomainError(IdentityReason.TotpCodeInvalid, "the code does not match");
  const { codes: recoveryCodes, stored } = issueRecoveryCodes(deps.totpKey);
  await deps.stores.transaction(async (tx) => {
    if (!(await tx.identities.confirmTotp(identity.identityUuid, factor.secretCiphertext, step, now))) {
      // Re-enrolled (or confirmed) meanwhile: the code was checked against a secret that is gone.
      throw new DomainError(IdentityReason.TotpNotPending, "the pending TOTP enrolment changed; enrol again");
    }
    await tx.identities.replaceRecoveryCodes(identity.identityUuid, stored, now);
    await tx.sessions.revokeAllOf(identity.identityUuid, now, session.sessionUuid);
    await recordChange(tx, deps, identity, { action: "identity.totp.confirm", targetType: "identity", targetUuid: identity.identityUuid }, now);
  });
  return { recoveryCodes };
}
