/**
 * A merchant's machine credentials: kept by the identity service, which knows no
 * merchants, so the merchants service is asked first (404 for an unknown
 * merchant; 409 MERCHANT_CLOSED for issuing one to a closed merchant; revoking
 * is always allowed). Identity records the changes it makes itself (its audit
 * outbox), a new credential as the target; refusals are recorded here.
 * `forgetMerchant`, when given, is told after every rotate and
 * revoke (a gateway's authenticator forgets the merchant's cached tokens).
 */
import { ApiError } from "@payin/http/errors";
import type { identityV1 } from "@payin/proto";
import { audited, type Actor, type AuditPorts } from "./audit.js";
import { existingMerchant, openMerchant } from "./merchant-state.js";
import type { Caller, Prepare, ServicePorts } from "./ports.js";

export type CredentialPorts = Pick<ServicePorts, "identity" | "merchants"> & {
  /** Told once a rotate or revoke was attempted, even when its answer was lost: the change may have committed. */
  forgetMerchant?: (merchantUuid: string) => void;
};

/** A credential just issued, with its token (shown once). */
export interface IssuedCredential {
  credential: identityV1.MachineCredential;
  token: string;
}

/** The merchant's credentials, newest first (never a token). */
export async function listMachineCredentials(ports: CredentialPorts, caller: Caller | undefined, merchantUuid: string): Promise<identityV1.MachineCredential[]> {
  await existingMerchant(ports, merchantUuid);
  return (await ports.identity.listMachineCredentials({ caller, merchantUuid })).credentials;
}

/**
 * One of the merchant's credentials, as listed (never its token). 404
 * CREDENTIAL_NOT_FOUND for an unknown or malformed uuid, or another merchant's.
 */
export async function readMachineCredential(ports: CredentialPorts, caller: Caller | undefined, merchantUuid: string, credentialUuid: string): Promise<identityV1.MachineCredential> {
  const wanted = credentialUuid.toLowerCase();
  const credential = (await listMachineCredentials(ports, caller, merchantUuid)).find((c) => c.credentialUuid === wanted);
  if (!credential) throw new ApiError("CREDENTIAL_NOT_FOUND", "machine credential not found");
  return credential;
}

const issued = (res: identityV1.CreateMachineCredentialResponse | identityV1.RotateMachineCredentialResponse): IssuedCredential => ({ credential: res.credential!, token: res.token });

/** Issues the merchant's machine credential (409 CREDENTIAL_ALREADY_ACTIVE when it has one). */
export function createMachineCredential(ports: CredentialPorts & AuditPorts, actor: Actor, caller: Caller | undefined, merchantUuid: string, prepare?: Prepare<void>): Promise<IssuedCredential> {
  const spec = { action: "credential.create", target: { type: "merchant", uuid: merchantUuid }, successRecordedBy: "identity" } as const;
  return audited(ports, actor, spec, async () => {
    await prepare?.();
    await openMerchant(ports, merchantUuid);
    return issued(await ports.identity.createMachineCredential({ caller, merchantUuid }));
  });
}

/** Revokes the merchant's active credential and issues a new one at once. */
export function rotateMachineCredential(ports: CredentialPorts & AuditPorts, actor: Actor, caller: Caller | undefined, merchantUuid: string, prepare?: Prepare<void>): Promise<IssuedCredential> {
  const spec = { action: "credential.rotate", target: { type: "merchant", uuid: merchantUuid }, successRecordedBy: "identity" } as const;
  return audited(ports, actor, spec, async () => {
    await prepare?.();
    await openMerchant(ports, merchantUuid);
    return issued(await ports.identity.rotateMachineCredential({ caller, merchantUuid }).finally(() => ports.forgetMerchant?.(merchantUuid)));
  });
}

/** Revokes one of the merchant's credentials (a closed merchant's too). */
export function revokeMachineCredential(
  ports: CredentialPorts & AuditPorts,
  actor: Actor,
  caller: Caller | undefined,
  merchantUuid: string,
  credentialUuid: string,
  prepare?: Prepare<void>,
): Promise<identityV1.MachineCredential> {
  const spec = { action: "credential.revoke", target: { type: "machine_credential", uuid: credentialUuid }, successRecordedBy: "identity" } as const;
  return audited(ports, actor, spec, async () => {
    await prepare?.();
    await existingMerchant(ports, merchantUuid);
    const res = await ports.identity.revokeMachineCredential({ caller, merchantUuid, credentialUuid }).finally(() => ports.forgetMerchant?.(merchantUuid));
    return res.credential!;
  });
}
