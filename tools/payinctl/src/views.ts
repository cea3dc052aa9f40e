/**
 * JSON views of what payinctl prints: the admin API's views of the same
 * resources (snake_case, ISO 8601 UTC timestamps, null for absent values), so an
 * operator reads the same fields whichever way they asked.
 */
import type { allocationV1, identityV1, merchantsV1 } from "@payin/proto";
import { merchantStatusName } from "@payin/proto";
import { isoFromTimestamp } from "@payin/rpc";

/** JSON of a bootstrapped admin, as printed and as kept in .data/bootstrap-admin.json. */
export function bootstrapView(res: identityV1.BootstrapAdminResponse) {
  const i = res.identity;
  return {
    identity: { uuid: i?.uuid, email: i?.email, status: i?.status, roles: i?.roles ?? [] },
    password: res.password,
    totp_uri: res.totpUri,
    recovery_codes: [...res.recoveryCodes],
  };
}

/**
 * The lines `npm start` prints about a new first admin whose credentials are kept
 * in `file`. The credentials themselves only when the output is a terminal: output
 * that is piped or redirected tends to end up in logs, and the 0600 file holds them.
 */
export function bootstrapBanner(file: string, view: ReturnType<typeof bootstrapView>, terminal: boolean): string[] {
  if (!terminal) {
    return ["", `first platform admin created; its password, TOTP secret and recovery codes are in ${file} (mode 0600, not printed: output is not a terminal)`];
  }
  return ["", `first platform admin created (shown once; also kept in ${file}):`, JSON.stringify(view)];
}

/** A page of a list the service pages, as the admin API answers one. */
export function pageView<T>(data: T[], total: bigint, limit: number, offset: number) {
  return { data, pagination: { total: Number(total), limit, offset } };
}

export function merchantView(m: merchantsV1.Merchant | undefined) {
  return {
    uuid: m?.uuid,
    display_name: m?.displayName,
    legal_name: m?.legalName ?? null,
    status: m ? (merchantStatusName(m.status) ?? "unknown") : undefined,
    created_at: isoFromTimestamp(m?.createdAt),
    updated_at: isoFromTimestamp(m?.updatedAt),
  };
}

export function membershipView(m: merchantsV1.Membership | undefined) {
  return { merchant_uuid: m?.merchantUuid, identity_uuid: m?.identityUuid, created_at: isoFromTimestamp(m?.createdAt) };
}

export function ruleView(r: merchantsV1.Rule | undefined) {
  return {
    rule_uuid: r?.ruleUuid,
    capability: r?.capability,
    jurisdiction: r?.jurisdiction,
    effect: r?.effect,
    version: r?.version,
    valid_from: isoFromTimestamp(r?.validFrom),
    valid_to: isoFromTimestamp(r?.validTo),
  };
}

export function policyView(p: merchantsV1.Policy | undefined) {
  return {
    policy_uuid: p?.policyUuid,
    merchant_uuid: p?.merchantUuid,
    scope: p?.scope,
    effect: p?.effect,
    version: p?.version,
    valid_from: isoFromTimestamp(p?.validFrom),
    valid_to: isoFromTimestamp(p?.validTo),
  };
}

export function operatingProfileView(p: merchantsV1.OperatingProfile | undefined) {
  return {
    merchant_uuid: p?.merchantUuid,
    operating_mode: p?.operatingMode,
    created_at: isoFromTimestamp(p?.createdAt),
    updated_at: isoFromTimestamp(p?.updatedAt),
  };
}

export function providerView(p: merchantsV1.Provider | undefined) {
  return { provider_uuid: p?.providerUuid, name: p?.name, created_at: isoFromTimestamp(p?.createdAt) };
}

export function bindingView(b: merchantsV1.ProviderBinding | undefined) {
  return {
    binding_uuid: b?.bindingUuid,
    merchant_uuid: b?.merchantUuid,
    provider_uuid: b?.providerUuid,
    capability: b?.capability,
    jurisdiction: b?.jurisdiction,
    created_at: isoFromTimestamp(b?.createdAt),
  };
}

/** A connection holds a secret *reference* (where the secret lives), never a secret: it is shown. */
export function connectionView(c: merchantsV1.ProviderConnection | undefined) {
  return {
    connection_uuid: c?.connectionUuid,
    merchant_uuid: c?.merchantUuid,
    provider_uuid: c?.providerUuid,
    secret_reference: c?.secretReference ?? null,
    created_at: isoFromTimestamp(c?.createdAt),
    updated_at: isoFromTimestamp(c?.updatedAt),
  };
}

export function walletView(w: allocationV1.Wallet | undefined) {
  return {
    merchant_uuid: w?.merchantUuid,
    xpub: w?.xpub,
    next_index: w?.nextIndex,
    created_at: isoFromTimestamp(w?.createdAt),
    updated_at: isoFromTimestamp(w?.updatedAt),
  };
}

/** A merchant's pay-in readiness, one entry per (asset, rail) pair, with its failing reason codes. */
export function readinessView(merchantUuid: string, pairs: readonly allocationV1.PairReadiness[]) {
  return {
    merchant_uuid: merchantUuid,
    pairs: pairs.map((p) => ({ asset: p.asset, rail: p.rail, ready: p.ready, reasons: [...p.reasons] })),
  };
}

/** An identity as the admin API shows it: uuid, email, status, roles. */
export function identityView(i: identityV1.Identity | undefined) {
  return { uuid: i?.uuid, email: i?.email, status: i?.status, roles: [...(i?.roles ?? [])] };
}

/** A credential just issued (create, rotate): its token is shown this once. */
export function issuedCredentialView(c: identityV1.MachineCredential | undefined, token: string) {
  return {
    credential_uuid: c?.credentialUuid,
    merchant_uuid: c?.merchantUuid,
    key_id: c?.keyId,
    status: c?.status,
    created_at: isoFromTimestamp(c?.createdAt),
    token,
  };
}

/** A credential as listed or revoked: never its token or any hash of it. */
export function credentialView(c: identityV1.MachineCredential | undefined) {
  const { token: _token, ...core } = issuedCredentialView(c, "");
  return {
    ...core,
    last_used_at: isoFromTimestamp(c?.lastUsedAt),
    revoked_at: isoFromTimestamp(c?.revokedAt),
    replaced_by_uuid: c?.replacedByUuid ?? null,
  };
}

export function auditEventView(e: merchantsV1.AuditEvent) {
  return {
    event_uuid: e.eventUuid,
    actor: { kind: e.actor?.kind ?? "system", uuid: e.actor?.uuid || null },
    action: e.action,
    target_type: e.targetType,
    target_uuid: e.targetUuid || null,
    outcome: e.outcome,
    error_code: e.errorCode || null,
    request_id: e.actor?.requestId || null,
    occurred_at: isoFromTimestamp(e.occurredAt),
  };
}
