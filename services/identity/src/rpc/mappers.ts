import { create } from "@bufbuild/protobuf";
import { identityV1, PRINCIPAL_KIND, type PrincipalKindName, type SameNames } from "@payin/proto";
import { toTimestamp } from "@payin/rpc";
import type { Authenticated } from "../domain/login.js";
import type { MachineCredential } from "../domain/machine-credential.js";
import type { Principal } from "../domain/principal.js";
import type { SessionView } from "../domain/session.js";
import type { Identity } from "../domain/stores.js";

/** The identity service's domain values as its contract's messages. */

const {
  AuthenticatedSchema,
  IdentitySchema,
  MachineCredentialSchema,
  PrincipalSchema,
  SessionSchema,
} = identityV1;

// The domain's principal kinds are the contract's (@payin/proto derives them): this fails to compile when one side gains a kind alone.
const _kindNames: SameNames<Principal["kind"], PrincipalKindName> = true;
const KIND_TO_PB: Readonly<Record<Principal["kind"], identityV1.PrincipalKind>> = PRINCIPAL_KIND.byName;

function optionalTimestamp(date: Date | null) {
  return date ? toTimestamp(date) : undefined;
}

export function credentialToPb(c: MachineCredential): identityV1.MachineCredential {
  return create(MachineCredentialSchema, {
    credentialUuid: c.credentialUuid,
    merchantUuid: c.merchantUuid,
    keyId: c.keyId,
    status: c.status,
    createdAt: toTimestamp(c.createdAt),
    lastUsedAt: optionalTimestamp(c.lastUsedAt),
    revokedAt: optionalTimestamp(c.revokedAt),
    replacedByUuid: c.replacedByUuid ?? undefined,
  });
}

export function identityToPb(i: Identity): identityV1.Identity {
  return create(IdentitySchema, {
    uuid: i.identityUuid,
    email: i.email,
    status: i.status,
    roles: [...i.roles],
    mfaEnrolled: i.mfaEnrolled,
    createdAt: toTimestamp(i.createdAt),
  });
}

export function sessionToPb(s: SessionView): identityV1.Session {
  return create(SessionSchema, {
    sessionUuid: s.sessionUuid,
    identity: identityToPb(s.identity),
    expiresAt: toTimestamp(s.expiresAt),
    absoluteExpiresAt: toTimestamp(s.absoluteExpiresAt),
    mfaSatisfied: s.mfaSatisfied,
    primaryAuthenticatedAt: toTimestamp(s.primaryAuthenticatedAt),
    mfaAuthenticatedAt: optionalTimestamp(s.mfaAuthenticatedAt),
    csrfToken: s.csrfToken,
    transport: s.transport,
    createdAt: toTimestamp(s.createdAt),
  });
}

export function authenticatedToPb(a: Authenticated): identityV1.Authenticated {
  return create(AuthenticatedSchema, { session: sessionToPb(a.session), sessionToken: a.token });
}

export function principalToPb(p: Principal, actorAssertion: string): identityV1.Principal {
  if (p.kind === "machine") {
    return create(PrincipalSchema, {
      kind: KIND_TO_PB[p.kind],
      merchantUuid: p.merchantUuid,
      credentialUuid: p.credentialUuid,
      permissions: [...p.permissions],
      actorAssertion,
    });
  }
  return create(PrincipalSchema, {
    kind: KIND_TO_PB[p.kind],
    identityUuid: p.identityUuid,
    sessionUuid: p.sessionUuid,
    roles: [...p.roles],
    permissions: [...p.permissions],
    privileged: p.privileged,
    mfaSatisfied: p.mfaSatisfied,
    mfaAuthenticatedAt: optionalTimestamp(p.mfaAuthenticatedAt),
    mfaRecentUntil: optionalTimestamp(p.mfaRecentUntil),
    csrfToken: p.csrfToken,
    transport: p.transport,
    actorAssertion,
  });
}
