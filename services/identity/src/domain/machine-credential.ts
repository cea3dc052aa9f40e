import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { generateMachineToken, parseMachineToken, secretMatches } from "./machine-token.js";
import { permissionsOf } from "./permissions.js";
import type { MachinePrincipal } from "./principal.js";
import { IdentityReason } from "./reasons.js";

export type MachineCredentialStatus = "active" | "revoked";

/** Public view of a machine credential: never the secret nor its hash. */
export interface MachineCredential {
  credentialUuid: string;
  merchantUuid: string;
  keyId: string;
  status: MachineCredentialStatus;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  replacedByUuid: string | null;
}

/** A credential as stored, with the hash its secret is checked against. */
export interface StoredMachineCredential extends MachineCredential {
  secretHash: Buffer;
}

/** Storage the machine-credential rules need. */
export interface MachineCredentialStore {
  /**
   * Stores an active credential. Answers false, storing nothing, when the merchant
   * already has an active one; the database decides, so concurrent calls are safe.
   */
  insertActive(credential: MachineCredential, secretHash: Buffer): Promise<boolean>;
  findByKeyId(keyId: string): Promise<StoredMachineCredential | null>;
  /** Sets last_used_at to `at` only when it is unset or older than `olderThan`. */
  recordUse(credentialUuid: string, at: Date, olderThan: Date): Promise<void>;
}

/** last_used_at is written at most once per this interval per credential. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/** The one answer to every failed authentication: it never says what was wrong. */
export function invalidToken(): DomainError<IdentityReason> {
  return new DomainError(IdentityReason.InvalidToken, "invalid token");
}

/**
 * Issues an active machine credential for a merchant and returns it with the
 * plaintext token, which exists only in this return value. Fails with
 * CREDENTIAL_ALREADY_ACTIVE when the merchant has an active credential.
 */
export async function issueMachineCredential(
  store: MachineCredentialStore,
  input: { credentialUuid: string; merchantUuid: string; now: Date },
): Promise<{ credential: MachineCredential; token: string }> {
  if (!isUuid(input.merchantUuid)) {
    throw new DomainError(IdentityReason.InvalidArgument, "merchant_uuid must be a UUID");
  }
  const { token, keyId, secretHash } = generateMachineToken();
  const credential: MachineCredential = {
    credentialUuid: input.credentialUuid,
    merchantUuid: input.merchantUuid,
    keyId,
    status: "active",
    createdAt: input.now,
    lastUsedAt: null,
    revokedAt: null,
    replacedByUuid: null,
  };
  if (!(await store.insertActive(credential, secretHash))) {
    throw new DomainError(IdentityReason.CredentialAlreadyActive, "the merchant already has an active machine credential");
  }
  return { credential, token };
}

/** True when a use at `now` should be written, given the last one recorded. */
export function shouldRecordUse(lastUsedAt: Date | null, now: Date): boolean {
  return lastUsedAt === null || lastUsedAt.getTime() < now.getTime() - LAST_USED_RESOLUTION_MS;
}

/**
 * Resolves a machine token to its principal, or fails with AUTH_INVALID_TOKEN when
 * the token is malformed, unknown, revoked or carries the wrong secret. The secret
 * is compared in constant time, also for unknown key ids. A successful use is
 * recorded in the background; its failure goes to `onBackgroundError`, never to the
 * caller.
 */
export async function authenticateMachineToken(
  store: MachineCredentialStore,
  token: string,
  options: { now: Date; onBackgroundError: (error: unknown, credentialUuid: string) => void },
): Promise<MachinePrincipal> {
  const parsed = parseMachineToken(token);
  if (!parsed) throw invalidToken();
  const stored = await store.findByKeyId(parsed.keyId);
  const matches = secretMatches(parsed.secret, stored?.secretHash ?? null);
  if (!stored || !matches || stored.status !== "active") throw invalidToken();
  if (shouldRecordUse(stored.lastUsedAt, options.now)) {
    const olderThan = new Date(options.now.getTime() - LAST_USED_RESOLUTION_MS);
    store.recordUse(stored.credentialUuid, options.now, olderThan).catch((error: unknown) => {
      options.onBackgroundError(error, stored.credentialUuid);
    });
  }
  return {
    kind: "machine",
    merchantUuid: stored.merchantUuid,
    credentialUuid: stored.credentialUuid,
    permissions: permissionsOf(["machine_credential"]),
  };
}
