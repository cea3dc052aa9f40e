/**
 * JSON views of the admin resources, the one copy: the admin API answers them
 * and payinctl prints them, so the same resource reads the same whichever way
 * it was asked for (docs/platform-api.md, the OpenAPI document). snake_case,
 * ISO 8601 UTC timestamps, null for absent values. Secrets never appear:
 * credential views carry a token only where the caller passes it (create and
 * rotate answers).
 */
import type { allocationV1, identityV1 } from "@payin/proto";
import { merchantStatusName, readinessReasonNames, type merchantsV1 } from "@payin/proto";
import { isoFromTimestamp } from "@payin/rpc";

/** A page of a list: `{data, pagination}`, the page as asked for and the total the service counted. */
export function listView<T>(data: T[], total: number | bigint, page: { limit: number; offset: number }) {
  return { data, pagination: { total: Number(total), limit: page.limit, offset: page.offset } };
}

/** Exactly the contract's merchant fields (docs/api.md). */
export function merchantView(m: merchantsV1.Merchant) {
  return {
    uuid: m.uuid,
    display_name: m.displayName,
    legal_name: m.legalName ?? null,
    status: merchantStatusName(m.status) ?? "unknown",
    created_at: isoFromTimestamp(m.createdAt),
    updated_at: isoFromTimestamp(m.updatedAt),
  };
}

/** Identity exactly as the contract shows it: uuid, email, status, roles. */
export function identityView(i: identityV1.Identity | undefined) {
  return { uuid: i?.uuid ?? "", email: i?.email ?? "", status: i?.status ?? "", roles: [...(i?.roles ?? [])] };
}

/** The credential fields every answer carries. */
function credentialCore(c: identityV1.MachineCredential) {
  return {
    credential_uuid: c.credentialUuid,
    merchant_uuid: c.merchantUuid,
    key_id: c.keyId,
    status: c.status,
    created_at: isoFromTimestamp(c.createdAt),
  };
}

/**
 * A credential just issued (create, rotate), with its token shown once: the
 * contract's fields without the three that only the listing carries (last_used_at,
 * revoked_at, replaced_by_uuid).
 */
export function issuedCredentialView(c: identityV1.MachineCredential, token: string) {
  return { ...credentialCore(c), token };
}

/** The contract's credential fields as listed; never token, secret or secret_hash. */
export function credentialView(c: identityV1.MachineCredential) {
  return {
    ...credentialCore(c),
    last_used_at: isoFromTimestamp(c.lastUsedAt),
    revoked_at: isoFromTimestamp(c.revokedAt),
    replaced_by_uuid: c.replacedByUuid ?? null,
  };
}

/** A membership; `role` is null when the membership names none (the identity's own merchant roles apply). */
export function membershipView(m: merchantsV1.Membership) {
  return { merchant_uuid: m.merchantUuid, identity_uuid: m.identityUuid, created_at: isoFromTimestamp(m.createdAt), role: m.role ?? null };
}

export function ruleView(r: merchantsV1.Rule) {
  return {
    rule_uuid: r.ruleUuid,
    capability: r.capability,
    jurisdiction: r.jurisdiction,
    effect: r.effect,
    version: r.version,
    valid_from: isoFromTimestamp(r.validFrom),
    valid_to: isoFromTimestamp(r.validTo),
  };
}

export function policyView(p: merchantsV1.Policy) {
  return {
    policy_uuid: p.policyUuid,
    merchant_uuid: p.merchantUuid,
    scope: p.scope,
    effect: p.effect,
    version: p.version,
    valid_from: isoFromTimestamp(p.validFrom),
    valid_to: isoFromTimestamp(p.validTo),
  };
}

export function operatingProfileView(p: merchantsV1.OperatingProfile) {
  return {
    merchant_uuid: p.merchantUuid,
    operating_mode: p.operatingMode,
    created_at: isoFromTimestamp(p.createdAt),
    updated_at: isoFromTimestamp(p.updatedAt),
  };
}

export function providerView(p: merchantsV1.Provider) {
  return { provider_uuid: p.providerUuid, name: p.name, created_at: isoFromTimestamp(p.createdAt) };
}

export function bindingView(b: merchantsV1.ProviderBinding) {
  return {
    binding_uuid: b.bindingUuid,
    merchant_uuid: b.merchantUuid,
    provider_uuid: b.providerUuid,
    capability: b.capability,
    jurisdiction: b.jurisdiction,
    created_at: isoFromTimestamp(b.createdAt),
  };
}

/** A connection holds a secret *reference* (where the secret lives), never a secret: it is shown. */
export function connectionView(c: merchantsV1.ProviderConnection) {
  return {
    connection_uuid: c.connectionUuid,
    merchant_uuid: c.merchantUuid,
    provider_uuid: c.providerUuid,
    secret_reference: c.secretReference ?? null,
    created_at: isoFromTimestamp(c.createdAt),
    updated_at: isoFromTimestamp(c.updatedAt),
  };
}

export function walletView(w: allocationV1.Wallet) {
  return {
    merchant_uuid: w.merchantUuid,
    xpub: w.xpub,
    next_index: w.nextIndex,
    created_at: isoFromTimestamp(w.createdAt),
    updated_at: isoFromTimestamp(w.updatedAt),
  };
}

/** A merchant's pay-in readiness: one entry per (asset, rail) pair. */
export function readinessView(merchantUuid: string, pairs: readonly allocationV1.PairReadiness[]) {
  return {
    merchant_uuid: merchantUuid,
    pairs: pairs.map((p) => ({ asset: p.asset, rail: p.rail, ready: p.ready, reasons: readinessReasonNames(p) })),
  };
}

export function auditEventView(e: merchantsV1.AuditEvent) {
  return {
    event_uuid: e.eventUuid,
    actor: { kind: e.actor?.kind ?? "system", uuid: e.actor?.uuid || null, os_user: e.actor?.osUser || null },
    action: e.action,
    target_type: e.targetType,
    target_uuid: e.targetUuid || null,
    outcome: e.outcome,
    error_code: e.errorCode || null,
    request_id: e.actor?.requestId || null,
    occurred_at: isoFromTimestamp(e.occurredAt),
  };
}
