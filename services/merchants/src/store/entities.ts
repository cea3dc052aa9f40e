import { EntitySchema } from "@payin/db";
import type { ActorKind, AuditOutcome } from "../domain/audit.js";
import type { MerchantStatus } from "../domain/merchant.js";
import type { OperatingMode } from "../domain/operating-profile.js";
import type { PolicyScope } from "../domain/policy.js";
import type { Effect } from "../domain/validation.js";

// Column types and constraints are the migrations'; these schemas describe the
// tables to the ORM. Conflict-sensitive writes are plain SQL in the repositories.

export interface MerchantRow {
  uuid: string;
  displayName: string;
  legalName: string | null;
  status: MerchantStatus;
  createdAt: Date;
  updatedAt: Date;
}

export const MerchantEntity = new EntitySchema<MerchantRow>({
  name: "MerchantRow",
  tableName: "merchants",
  properties: {
    uuid: { type: "uuid", primary: true },
    displayName: { type: "string", length: 150 },
    legalName: { type: "string", length: 255, nullable: true },
    status: { type: "string", length: 16, index: true },
    createdAt: { type: "Date", columnType: "timestamptz(3)" },
    updatedAt: { type: "Date", columnType: "timestamptz(3)" },
  },
});

export interface MembershipRow {
  merchantUuid: string;
  identityUuid: string;
  createdAt: Date;
}

export const MembershipEntity = new EntitySchema<MembershipRow>({
  name: "MembershipRow",
  tableName: "memberships",
  properties: {
    merchantUuid: { type: "uuid", primary: true },
    identityUuid: { type: "uuid", primary: true },
    createdAt: { type: "Date", columnType: "timestamptz(3)" },
  },
});

export interface RuleRow {
  ruleUuid: string;
  capability: string;
  jurisdiction: string;
  effect: Effect;
  version: number;
  validFrom: Date;
  validTo: Date | null;
}

export const RuleEntity = new EntitySchema<RuleRow>({
  name: "RuleRow",
  tableName: "rules",
  properties: {
    ruleUuid: { type: "uuid", primary: true },
    capability: { type: "string", length: 64 },
    jurisdiction: { type: "string", length: 2 },
    effect: { type: "string", length: 8 },
    version: { type: "integer" },
    validFrom: { type: "Date", columnType: "timestamptz(3)" },
    validTo: { type: "Date", columnType: "timestamptz(3)", nullable: true },
  },
});

export interface OperatingProfileRow {
  merchantUuid: string;
  operatingMode: OperatingMode;
  createdAt: Date;
  updatedAt: Date;
}

export const OperatingProfileEntity = new EntitySchema<OperatingProfileRow>({
  name: "OperatingProfileRow",
  tableName: "operating_profiles",
  properties: {
    merchantUuid: { type: "uuid", primary: true },
    operatingMode: { type: "string", length: 32 },
    createdAt: { type: "Date", columnType: "timestamptz(3)" },
    updatedAt: { type: "Date", columnType: "timestamptz(3)" },
  },
});

export interface PolicyRow {
  policyUuid: string;
  merchantUuid: string;
  scope: PolicyScope;
  effect: Effect;
  version: number;
  validFrom: Date;
  validTo: Date | null;
}

export const PolicyEntity = new EntitySchema<PolicyRow>({
  name: "PolicyRow",
  tableName: "policies",
  properties: {
    policyUuid: { type: "uuid", primary: true },
    merchantUuid: { type: "uuid" },
    scope: { type: "string", length: 16 },
    effect: { type: "string", length: 8 },
    version: { type: "integer" },
    validFrom: { type: "Date", columnType: "timestamptz(3)" },
    validTo: { type: "Date", columnType: "timestamptz(3)", nullable: true },
  },
});

export interface ProviderRow {
  providerUuid: string;
  name: string;
  createdAt: Date;
}

export const ProviderEntity = new EntitySchema<ProviderRow>({
  name: "ProviderRow",
  tableName: "providers",
  properties: {
    providerUuid: { type: "uuid", primary: true },
    name: { type: "string", length: 100 },
    createdAt: { type: "Date", columnType: "timestamptz(3)" },
  },
});

export interface ProviderBindingRow {
  bindingUuid: string;
  merchantUuid: string;
  providerUuid: string;
  capability: string;
  jurisdiction: string;
  createdAt: Date;
}

export const ProviderBindingEntity = new EntitySchema<ProviderBindingRow>({
  name: "ProviderBindingRow",
  tableName: "provider_bindings",
  properties: {
    bindingUuid: { type: "uuid", primary: true },
    merchantUuid: { type: "uuid" },
    providerUuid: { type: "uuid" },
    capability: { type: "string", length: 64 },
    jurisdiction: { type: "string", length: 2 },
    createdAt: { type: "Date", columnType: "timestamptz(3)" },
  },
});

export interface ProviderConnectionRow {
  connectionUuid: string;
  merchantUuid: string;
  providerUuid: string;
  secretReference: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const ProviderConnectionEntity = new EntitySchema<ProviderConnectionRow>({
  name: "ProviderConnectionRow",
  tableName: "provider_connections",
  properties: {
    connectionUuid: { type: "uuid", primary: true },
    merchantUuid: { type: "uuid" },
    providerUuid: { type: "uuid" },
    secretReference: { type: "string", length: 255, nullable: true },
    createdAt: { type: "Date", columnType: "timestamptz(3)" },
    updatedAt: { type: "Date", columnType: "timestamptz(3)" },
  },
});

export interface AuditEventRow {
  eventUuid: string;
  actorKind: ActorKind;
  actorUuid: string | null;
  requestId: string | null;
  action: string;
  targetType: string;
  targetUuid: string | null;
  outcome: AuditOutcome;
  errorCode: string | null;
  occurredAt: Date;
}

export const AuditEventEntity = new EntitySchema<AuditEventRow>({
  name: "AuditEventRow",
  tableName: "audit_events",
  properties: {
    eventUuid: { type: "uuid", primary: true },
    actorKind: { type: "string", length: 32 },
    actorUuid: { type: "uuid", nullable: true },
    requestId: { type: "string", length: 128, nullable: true },
    action: { type: "string", length: 64 },
    targetType: { type: "string", length: 32 },
    targetUuid: { type: "uuid", nullable: true },
    outcome: { type: "string", length: 16 },
    errorCode: { type: "string", length: 64, nullable: true },
    occurredAt: { type: "Date", columnType: "timestamptz(3)" },
  },
});

/** Every table of the merchants schema, for the ORM. */
export const entities = [
  MerchantEntity,
  MembershipEntity,
  RuleEntity,
  OperatingProfileEntity,
  PolicyEntity,
  ProviderEntity,
  ProviderBindingEntity,
  ProviderConnectionEntity,
  AuditEventEntity,
];
