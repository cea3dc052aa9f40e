import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { recordChange } from "./audit-outbox.js";
import { requireMfa, requirePermission, requireRecentMfa } from "./caller.js";
import { issueMachineCredential, type MachineCredential } from "./machine-credential.js";
import { generateMachineToken } from "./machine-token.js";
import type { HumanPrincipal } from "./principal.js";
import { IdentityReason } from "./reasons.js";
import type { IdentityDeps } from "./stores.js";

/**
 * Credential management needs a person with credential.manage whose session
 * completed MFA (docs/platform-api.md, "Machine credentials"), within the last 15 minutes for a
 * change (`recent`): a credential moves money. A machine token is FORBIDDEN.
 * A null session token means no person acts: the operator CLI with its service
 * credential alone; the RPC layer passes null only for such a caller
 * (rpc/callers.ts, ACT_WITHOUT_PERSON).
 */
async function requireCredentialManager(deps: IdentityDeps, sessionToken: string | null, now: Date, recent: boolean): Promise<HumanPrincipal | null> {
  if (sessionToken === null) return null;
  const caller = await requirePermission(deps, sessionToken, "credential.manage", now);
  if (recent) requireRecentMfa(caller, now);
  else requireMfa(caller);
  return caller;
}

function checkMerchantUuid(merchantUuid: string): void {
  if (!isUuid(merchantUuid)) throw new DomainError(IdentityReason.InvalidArgument, "merchant_uuid must be a UUID");
}

function credentialNotFound(): DomainError<IdentityReason> {
  return new DomainError(IdentityReason.CredentialNotFound, "machine credential not found");
}

/**
 * Issues a merchant's machine credential. With a session token, its person must
 * be a credential manager with recent MFA; null means no person acts (the
 * operator CLI with its service credential alone): the RPC layer passes null
 * only for such a caller (rpc/callers.ts, ACT_WITHOUT_PERSON).
 */
export async function createMachineCredential(
  deps: IdentityDeps,
  input: { sessionToken: string | null; merchantUuid: string },
): Promise<{ credential: MachineCredential; token: string }> {
  const now = deps.clock();
  const person = await requireCredentialManager(deps, input.sessionToken, now, true);
  return deps.stores.transaction(async (tx) => {
    const issued = await issueMachineCredential(tx.machineCredentials, { credentialUuid: deps.newId(), merchantUuid: input.merchantUuid, now });
    await recordChange(tx, deps, person, { action: "credential.create", targetType: "machine_credential", targetUuid: issued.credential.credentialUuid }, now);
    return issued;
  });
}

/** A merchant's credentials, newest first, never with a token or hash. */
export async function listMachineCredentials(
  deps: IdentityDeps,
  input: { sessionToken: string | null; merchantUuid: string },
): Promise<MachineCredential[]> {
  await requireCredentialManager(deps, input.sessionToken, deps.clock(), false);
  checkMerchantUuid(input.merchantUuid);
  return deps.stores.machineCredentials.listByMerchant(input.merchantUuid);
}

/**
 * Replaces the merchant's active credential in one transaction: the active row is
 * locked, marked revoked with replaced_by_uuid set, and the new one inserted, so
 * there is never a moment with two active credentials or none. Rotations of one
 * merchant are serialised. No active credential: NO_ACTIVE_CREDENTIAL.
 */
export async function rotateMachineCredential(
  deps: IdentityDeps,
  input: { sessionToken: string | null; merchantUuid: string },
): Promise<{ credential: MachineCredential; token: string }> {
  const now = deps.clock();
  const person = await requireCredentialManager(deps, input.sessionToken, now, true);
  checkMerchantUuid(input.merchantUuid);
  const { token, keyId, secretHash } = generateMachineToken();
  const credential: MachineCredential = {
    credentialUuid: deps.newId(),
    merchantUuid: input.merchantUuid,
    keyId,
    status: "active",
    createdAt: now,
    lastUsedAt: null,
    revokedAt: null,
    replacedByUuid: null,
  };
  await deps.stores.transaction(async (tx) => {
    const store = tx.machineCredentials;
    await store.lockMerchant(input.merchantUuid);
    const active = await store.findActiveForUpdate(input.merchantUuid);
    if (!active) throw new DomainError(IdentityReason.NoActiveCredential, "the merchant has no active machine credential");
    await store.markRevoked(active.credentialUuid, now, credential.credentialUuid);
    if (!(await store.insertActive(credential, secretHash))) throw new Error("an active credential appeared during rotation");
    await recordChange(tx, deps, person, { action: "credential.rotate", targetType: "machine_credential", targetUuid: credential.credentialUuid }, now);
  });
  return { credential, token };
}

/**
 * Revokes one of the merchant's credentials. Unknown, or another merchant's:
 * CREDENTIAL_NOT_FOUND; already revoked: CREDENTIAL_ALREADY_REVOKED.
 */
export async function revokeMachineCredential(
  deps: IdentityDeps,
  input: { sessionToken: string | null; merchantUuid: string; credentialUuid: string },
): Promise<MachineCredential> {
  const now = deps.clock();
  const person = await requireCredentialManager(deps, input.sessionToken, now, true);
  checkMerchantUuid(input.merchantUuid);
  if (!isUuid(input.credentialUuid)) throw credentialNotFound();
  return deps.stores.transaction(async (tx) => {
    const store = tx.machineCredentials;
    await store.lockMerchant(input.merchantUuid);
    const found = await store.findForUpdate(input.credentialUuid);
    if (!found || found.merchantUuid !== input.merchantUuid) throw credentialNotFound();
    if (found.status === "revoked") {
      throw new DomainError(IdentityReason.CredentialAlreadyRevoked, "the machine credential is already revoked");
    }
    await store.markRevoked(found.credentialUuid, now, null);
    await recordChange(tx, deps, person, { action: "credential.revoke", targetType: "machine_credential", targetUuid: found.credentialUuid }, now);
    const { secretHash: _hash, ...credential } = found;
    return { ...credential, status: "revoked", revokedAt: now };
  });
}
