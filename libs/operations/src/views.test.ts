import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { allocationV1, identityV1, merchantsV1 } from "@payin/proto";
import {
  auditEventView,
  bindingView,
  connectionView,
  credentialView,
  identityView,
  issuedCredentialView,
  listView,
  membershipView,
  merchantView,
  operatingProfileView,
  policyView,
  providerView,
  readinessView,
  ruleView,
  walletView,
} from "./views.js";

describe("admin views", () => {
  it("a list: the data and the page asked for, with the service's total as a number", () => {
    expect(listView([1, 2], 12n, { limit: 2, offset: 4 })).toEqual({ data: [1, 2], pagination: { total: 12, limit: 2, offset: 4 } });
  });

  it("readiness: each pair's failing reasons by their contract names, the enum's and the strings alike", () => {
    const { ReadinessReason } = allocationV1;
    const pairs = [
      create(allocationV1.PairReadinessSchema, { asset: "usdt", rail: "bep20", ready: false, reasonCodes: [ReadinessReason.MERCHANT_INACTIVE, ReadinessReason.WALLET_NOT_READY] }),
      create(allocationV1.PairReadinessSchema, { asset: "usdc", rail: "erc20", ready: true }),
    ];
    expect(readinessView("m", pairs)).toEqual({
      merchant_uuid: "m",
      pairs: [
        { asset: "usdt", rail: "bep20", ready: false, reasons: ["merchant_inactive", "wallet_not_ready"] },
        { asset: "usdc", rail: "erc20", ready: true, reasons: [] },
      ],
    });
  });

  it("null for what is absent", () => {
    const merchant = create(merchantsV1.MerchantSchema, { uuid: "u", displayName: "Shop", status: merchantsV1.MerchantStatus.ACTIVE });
    expect(merchantView(merchant)).toEqual({ uuid: "u", display_name: "Shop", legal_name: null, status: "active", created_at: null, updated_at: null });
    const event = create(merchantsV1.AuditEventSchema, { eventUuid: "e", action: "rail.resume", targetType: "rail", outcome: "succeeded", actor: { kind: "operator_cli", requestId: "r", osUser: "ops" } });
    expect(auditEventView(event)).toEqual({
      event_uuid: "e",
      actor: { kind: "operator_cli", uuid: null, os_user: "ops" },
      action: "rail.resume",
      target_type: "rail",
      target_uuid: null,
      outcome: "succeeded",
      error_code: null,
      request_id: "r",
      occurred_at: null,
    });
  });
});

describe("admin views of each resource", () => {
  const at = { seconds: 1_800_000_000n, nanos: 0 };
  const iso = "2027-01-15T08:00:00.000Z";

  it("identity, membership and credentials: the contract's fields, a token only when issued", () => {
    expect(identityView(create(identityV1.IdentitySchema, { uuid: "i", email: "a@example.com", status: "active", roles: ["platform_admin"] }))).toEqual({
      uuid: "i",
      email: "a@example.com",
      status: "active",
      roles: ["platform_admin"],
    });
    expect(identityView(undefined)).toEqual({ uuid: "", email: "", status: "", roles: [] });
    expect(membershipView(create(merchantsV1.MembershipSchema, { merchantUuid: "m", identityUuid: "i", createdAt: at }))).toEqual({
      merchant_uuid: "m",
      identity_uuid: "i",
      created_at: iso,
      role: null,
    });
    expect(membershipView(create(merchantsV1.MembershipSchema, { merchantUuid: "m", identityUuid: "i", createdAt: at, role: "merchant_admin" })).role).toBe("merchant_admin");
    const credential = create(identityV1.MachineCredentialSchema, { credentialUuid: "c", merchantUuid: "m", keyId: "k", status: "revoked", createdAt: at, revokedAt: at, replacedByUuid: "d" });
    const core = { credential_uuid: "c", merchant_uuid: "m", key_id: "k", status: "revoked", created_at: iso };
    expect(credentialView(credential)).toEqual({ ...core, last_used_at: null, revoked_at: iso, replaced_by_uuid: "d" });
    expect(credentialView(create(identityV1.MachineCredentialSchema, {})).replaced_by_uuid).toBeNull();
    expect(issuedCredentialView(credential, "mpk_token")).toEqual({ ...core, token: "mpk_token" });
  });

  it("configuration: rule, policy, operating profile, provider, binding, connection, wallet", () => {
    expect(ruleView(create(merchantsV1.RuleSchema, { ruleUuid: "r", capability: "crypto.payin", jurisdiction: "DE", effect: "allow", version: 2, validFrom: at }))).toEqual({
      rule_uuid: "r",
      capability: "crypto.payin",
      jurisdiction: "DE",
      effect: "allow",
      version: 2,
      valid_from: iso,
      valid_to: null,
    });
    expect(policyView(create(merchantsV1.PolicySchema, { policyUuid: "p", merchantUuid: "m", scope: "payin", effect: "deny", version: 1, validFrom: at, validTo: at }))).toEqual({
      policy_uuid: "p",
      merchant_uuid: "m",
      scope: "payin",
      effect: "deny",
      version: 1,
      valid_from: iso,
      valid_to: iso,
    });
    expect(operatingProfileView(create(merchantsV1.OperatingProfileSchema, { merchantUuid: "m", operatingMode: "hybrid", createdAt: at, updatedAt: at }))).toEqual({
      merchant_uuid: "m",
      operating_mode: "hybrid",
      created_at: iso,
      updated_at: iso,
    });
    expect(providerView(create(merchantsV1.ProviderSchema, { providerUuid: "v", name: "evm-rpc", createdAt: at }))).toEqual({ provider_uuid: "v", name: "evm-rpc", created_at: iso });
    expect(
      bindingView(create(merchantsV1.ProviderBindingSchema, { bindingUuid: "b", merchantUuid: "m", providerUuid: "v", capability: "crypto.payin", jurisdiction: "DE", createdAt: at })),
    ).toEqual({ binding_uuid: "b", merchant_uuid: "m", provider_uuid: "v", capability: "crypto.payin", jurisdiction: "DE", created_at: iso });
    const connection = { connectionUuid: "c", merchantUuid: "m", providerUuid: "v", createdAt: at, updatedAt: at };
    expect(connectionView(create(merchantsV1.ProviderConnectionSchema, { ...connection, secretReference: "vault:kv/x" }))).toEqual({
      connection_uuid: "c",
      merchant_uuid: "m",
      provider_uuid: "v",
      secret_reference: "vault:kv/x",
      created_at: iso,
      updated_at: iso,
    });
    expect(connectionView(create(merchantsV1.ProviderConnectionSchema, connection)).secret_reference).toBeNull();
    expect(walletView(create(allocationV1.WalletSchema, { merchantUuid: "m", xpub: "xpub6", nextIndex: 3, createdAt: at, updatedAt: at }))).toEqual({
      merchant_uuid: "m",
      xpub: "xpub6",
      next_index: 3,
      created_at: iso,
      updated_at: iso,
    });
  });

  it("a merchant with its legal name, and an audit event of a person's refused change", () => {
    const merchant = create(merchantsV1.MerchantSchema, { uuid: "u", displayName: "Shop", legalName: "Shop GmbH", status: merchantsV1.MerchantStatus.CLOSED, createdAt: at, updatedAt: at });
    expect(merchantView(merchant)).toEqual({ uuid: "u", display_name: "Shop", legal_name: "Shop GmbH", status: "closed", created_at: iso, updated_at: iso });
    const event = create(merchantsV1.AuditEventSchema, {
      eventUuid: "e",
      actor: { kind: "identity", uuid: "p", requestId: "r" },
      action: "merchant.activate",
      targetType: "merchant",
      targetUuid: "u",
      outcome: "failed",
      errorCode: "MERCHANT_CLOSED",
      occurredAt: at,
    });
    expect(auditEventView(event)).toEqual({
      event_uuid: "e",
      actor: { kind: "identity", uuid: "p", os_user: null },
      action: "merchant.activate",
      target_type: "merchant",
      target_uuid: "u",
      outcome: "failed",
      error_code: "MERCHANT_CLOSED",
      request_id: "r",
      occurred_at: iso,
    });
    // No actor at all: the system.
    expect(auditEventView(create(merchantsV1.AuditEventSchema, { eventUuid: "e" })).actor).toEqual({ kind: "system", uuid: null, os_user: null });
    expect(auditEventView(create(merchantsV1.AuditEventSchema, { eventUuid: "e" })).request_id).toBeNull();
  });
});
