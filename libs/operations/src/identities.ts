/**
 * Identities, kept by the identity service (which re-checks a person's
 * permission and MFA from the session token passed as the caller); identity
 * records every change it makes itself (its audit outbox), refusals are
 * recorded here.
 */
import type { identityV1 } from "@payin/proto";
import { audited, type Actor, type AuditPorts } from "./audit.js";
import type { Caller, Prepare, ServicePorts } from "./ports.js";

export type IdentityPorts = Pick<ServicePorts, "identity"> & AuditPorts;

/** The status changes of an identity: its verb (the action `identity.<verb>`) and the status it sets. */
export const IDENTITY_STATUS_CHANGES = [
  ["disable", "disabled"],
  ["lock", "locked"],
  ["activate", "active"],
] as const;
export type IdentityStatusVerb = (typeof IDENTITY_STATUS_CHANGES)[number][0];
const STATUS_OF: Readonly<Record<IdentityStatusVerb, string>> = Object.fromEntries(IDENTITY_STATUS_CHANGES) as Record<IdentityStatusVerb, string>;

export function createIdentity(
  ports: IdentityPorts,
  actor: Actor,
  caller: Caller | undefined,
  prepare: Prepare<{ email: string; password: string; roles: string[] }>,
): Promise<identityV1.Identity> {
  const spec = { action: "identity.create", target: { type: "identity" }, successRecordedBy: "identity" } as const;
  return audited(ports, actor, spec, async () => (await ports.identity.createIdentity({ caller, ...(await prepare()) })).identity!);
}

/** Disables, locks or (from disabled or locked) activates an identity; disabling and locking end its sessions. */
export function setIdentityStatus(ports: IdentityPorts, actor: Actor, caller: Caller | undefined, identityUuid: string, verb: IdentityStatusVerb, prepare?: Prepare<void>): Promise<identityV1.Identity> {
  return audited(ports, actor, { action: `identity.${verb}`, target: { type: "identity", uuid: identityUuid }, successRecordedBy: "identity" }, async () => {
    await prepare?.();
    return (await ports.identity.setIdentityStatus({ caller, identityUuid, status: STATUS_OF[verb] })).identity!;
  });
}

/** Forgives the identity's counted sign-in failures; answers the identity and how many were forgiven. */
export function resetSignInFailures(
  ports: IdentityPorts,
  actor: Actor,
  caller: Caller | undefined,
  identityUuid: string,
  prepare?: Prepare<void>,
): Promise<{ identity: identityV1.Identity; forgiven: number }> {
  const spec = { action: "identity.sign_in_failures.reset", target: { type: "identity", uuid: identityUuid }, successRecordedBy: "identity" } as const;
  return audited(ports, actor, spec, async () => {
    await prepare?.();
    const res = await ports.identity.resetSignInFailures({ caller, identityUuid });
    return { identity: res.identity!, forgiven: res.forgiven };
  });
}

/** Takes a role from an identity (never the last active platform_admin's). */
export function removeRole(ports: IdentityPorts, actor: Actor, caller: Caller | undefined, identityUuid: string, prepare: Prepare<{ role: string }>): Promise<identityV1.Identity> {
  return audited(ports, actor, { action: "identity.role.remove", target: { type: "identity", uuid: identityUuid }, successRecordedBy: "identity" }, async () => {
    return (await ports.identity.removeRole({ caller, identityUuid, ...(await prepare()) })).identity!;
  });
}
