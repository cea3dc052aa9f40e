import { create } from "@bufbuild/protobuf";
import { MERCHANT_STATUS, MERCHANT_TRANSITION, merchantsV1, type MerchantStatusName, type MerchantTransitionName, type SameNames } from "@payin/proto";
import { toTimestamp } from "@payin/rpc";
import type { AuditEvent } from "../domain/audit.js";
import type { Membership } from "../domain/membership.js";
import type { Merchant, MerchantStatus, MerchantTransition } from "../domain/merchant.js";
import type { OperatingProfile } from "../domain/operating-profile.js";
import type { Policy } from "../domain/policy.js";
import type { Provider, ProviderBinding, ProviderConnection } from "../domain/provider.js";
import type { Rule } from "../domain/rule.js";
import { invalid } from "../domain/validation.js";

const { MerchantStatus: PbStatus } = merchantsV1;

// The domain's names are the contract's (@payin/proto derives them): these fail to compile when one side gains a value alone.
const _statusNames: SameNames<MerchantStatus, MerchantStatusName> = true;
const _transitionNames: SameNames<MerchantTransition, MerchantTransitionName> = true;

/** Domain status → proto enum (the domain's names are the wire names). */
export const STATUS_TO_PB: Readonly<Record<MerchantStatus, merchantsV1.MerchantStatus>> = MERCHANT_STATUS.byName;

/** Proto transition → domain transition; undefined for UNSPECIFIED or an unknown number. */
export const transitionFromPb = (transition: merchantsV1.MerchantTransition): MerchantTransition | undefined => MERCHANT_TRANSITION.nameOf(transition);

/** A status filter: UNSPECIFIED means none; an unknown number is INVALID_ARGUMENT. */
export function statusFilterFromPb(status: merchantsV1.MerchantStatus): MerchantStatus | undefined {
  if (status === PbStatus.UNSPECIFIED) return undefined;
  return MERCHANT_STATUS.nameOf(status) ?? invalid("status is not a merchant status");
}


/** Merchant → proto. */
export function merchantToPb(m: Merchant): merchantsV1.Merchant {
  return create(merchantsV1.MerchantSchema, {
    uuid: m.uuid,
    displayName: m.displayName,
    legalName: m.legalName ?? undefined,
    status: STATUS_TO_PB[m.status],
    createdAt: toTimestamp(m.createdAt),
    updatedAt: toTimestamp(m.updatedAt),
  });
}

/** Membership → proto; role unset when the membership names none. */
export function membershipToPb(m: Membership): merchantsV1.Membership {
  return create(merchantsV1.MembershipSchema, {
    merchantUuid: m.merchantUuid,
    identityUuid: m.identityUuid,
    createdAt: toTimestamp(m.createdAt),
    role: m.role ?? undefined,
  });
}

/** Rule → proto; valid_to unset while the version is open. */
export function ruleToPb(r: Rule): merchantsV1.Rule {
  return create(merchantsV1.RuleSchema, {
    ruleUuid: r.ruleUuid,
    capability: r.capability,
    jurisdiction: r.jurisdiction,
    effect: r.effect,
    version: r.version,
    validFrom: toTimestamp(r.validFrom),
    validTo: r.validTo ? toTimestamp(r.validTo) : undefined,
  });
}

/** OperatingProfile → proto. */
export function profileToPb(p: OperatingProfile): merchantsV1.OperatingProfile {
  return create(merchantsV1.OperatingProfileSchema, {
    merchantUuid: p.merchantUuid,
    operatingMode: p.operatingMode,
    createdAt: toTimestamp(p.createdAt),
    updatedAt: toTimestamp(p.updatedAt),
  });
}

/** Policy → proto; valid_to unset while the version is open. */
export function policyToPb(p: Policy): merchantsV1.Policy {
  return create(merchantsV1.PolicySchema, {
    policyUuid: p.policyUuid,
    merchantUuid: p.merchantUuid,
    scope: p.scope,
    effect: p.effect,
    version: p.version,
    validFrom: toTimestamp(p.validFrom),
    validTo: p.validTo ? toTimestamp(p.validTo) : undefined,
  });
}

/** Provider → proto. */
export function providerToPb(p: Provider): merchantsV1.Provider {
  return create(merchantsV1.ProviderSchema, { providerUuid: p.providerUuid, name: p.name, createdAt: toTimestamp(p.createdAt) });
}

/** ProviderBinding → proto. */
export function bindingToPb(b: ProviderBinding): merchantsV1.ProviderBinding {
  return create(merchantsV1.ProviderBindingSchema, {
    bindingUuid: b.bindingUuid,
    merchantUuid: b.merchantUuid,
    providerUuid: b.providerUuid,
    capability: b.capability,
    jurisdiction: b.jurisdiction,
    createdAt: toTimestamp(b.createdAt),
  });
}

/** ProviderConnection → proto (the reference only; there is no secret to leak). */
export function connectionToPb(c: ProviderConnection): merchantsV1.ProviderConnection {
  return create(merchantsV1.ProviderConnectionSchema, {
    connectionUuid: c.connectionUuid,
    merchantUuid: c.merchantUuid,
    providerUuid: c.providerUuid,
    secretReference: c.secretReference ?? undefined,
    createdAt: toTimestamp(c.createdAt),
    updatedAt: toTimestamp(c.updatedAt),
  });
}

/** AuditEvent → proto; absent values are empty strings. */
export function auditEventToPb(e: AuditEvent): merchantsV1.AuditEvent {
  return create(merchantsV1.AuditEventSchema, {
    eventUuid: e.eventUuid,
    actor: { kind: e.actor.kind, uuid: e.actor.uuid ?? "", requestId: e.actor.requestId ?? "", osUser: e.actor.osUser ?? "" },
    action: e.action,
    targetType: e.targetType,
    targetUuid: e.targetUuid ?? "",
    outcome: e.outcome,
    occurredAt: toTimestamp(e.occurredAt),
    errorCode: e.errorCode ?? "",
  });
}
