/**
 * A merchant's machine credentials: kept by the identity service, which knows no
 * merchants, so the gateway asks the merchants service first (404 for an unknown
 * merchant; 409 MERCHANT_CLOSED for issuing one to a closed merchant; revoking
 * is always allowed). A rotate or revoke makes this gateway's authenticator
 * forget the merchant's cached tokens at once.
 */
import { ApiError } from "@payin/http";
import type { HumanPrincipal } from "../auth/authenticator.js";
import type { AppDeps } from "../deps.js";
import { existingMerchant, openMerchant } from "./merchant-state.js";

export type CredentialDeps = Pick<AppDeps, "auth" | "identity" | "merchants">;

/** The Caller identity re-checks: the person's session token. */
function caller(principal: HumanPrincipal) {
  return { sessionToken: principal.sessionToken };
}

export async function listMachineCredentials(deps: CredentialDeps, principal: HumanPrincipal, merchantUuid: string) {
  await existingMerchant(deps, merchantUuid);
  return (await deps.identity.listMachineCredentials({ caller: caller(principal), merchantUuid })).credentials;
}

/**
 * One of the merchant's credentials, as listed (never its token). 404
 * CREDENTIAL_NOT_FOUND for an unknown or malformed uuid, or another merchant's.
 */
export async function readMachineCredential(deps: CredentialDeps, principal: HumanPrincipal, merchantUuid: string, credentialUuid: string) {
  const wanted = credentialUuid.toLowerCase();
  const credential = (await listMachineCredentials(deps, principal, merchantUuid)).find((c) => c.credentialUuid === wanted);
  if (!credential) throw new ApiError("CREDENTIAL_NOT_FOUND", "machine credential not found");
  return credential;
}

export async function createMachineCredential(deps: CredentialDeps, principal: HumanPrincipal, merchantUuid: string) {
  await openMerchant(deps, merchantUuid);
  return deps.identity.createMachineCredential({ caller: caller(principal), merchantUuid });
}

export async function rotateMachineCredential(deps: CredentialDeps, principal: HumanPrincipal, merchantUuid: string) {
  await openMerchant(deps, merchantUuid);
  // Forgotten even when the answer is lost: the change may have committed.
  return deps.identity.rotateMachineCredential({ caller: caller(principal), merchantUuid }).finally(() => deps.auth.forgetMerchant(merchantUuid));
}

export async function revokeMachineCredential(deps: CredentialDeps, principal: HumanPrincipal, merchantUuid: string, credentialUuid: string) {
  await existingMerchant(deps, merchantUuid);
  return deps.identity
    .revokeMachineCredential({ caller: caller(principal), merchantUuid, credentialUuid })
    .finally(() => deps.auth.forgetMerchant(merchantUuid));
}
