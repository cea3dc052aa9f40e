/**
 * Platform configuration, as a table (table.ts): rules, operating profiles,
 * policies, the provider registry, provider bindings and connections (merchants
 * service), and the receiving wallet (allocation service). Value rules (the
 * effect, scope and operating mode values, the jurisdiction and secret reference
 * forms, xpub validity) are the services' and documented as theirs; the gateway
 * checks the body's shape, types and lengths, and that a capability is known.
 * The changes and their audit are @payin/operations'.
 */
import { rpcOffset } from "@payin/http";
import {
  bindingView,
  connectionView,
  createPolicy,
  createProvider,
  createRule,
  ensureOperatingProfile,
  ensureProviderBinding,
  ensureProviderConnection,
  listView,
  operatingProfileView,
  policyView,
  providerView,
  readReceivingWallet,
  rotateConnectionSecret,
  ruleView,
  setReceivingWallet,
  walletView,
} from "@payin/operations";
import { CAPABILITIES, UNKNOWN_CAPABILITY_MESSAGE, WALLET_PERMISSION } from "@payin/permissions";
import { ADMIN_PREFIX, type AdminRoute, type FieldSpec } from "./table.js";

/** The merchants service's operating modes and policy scopes, as the document states them. */
export const OPERATING_MODES = ["non_custodial", "platform_custody", "hybrid"] as const;
export const POLICY_SCOPES = ["payin", "payout", "custody", "settlement"] as const;

const SHORT = { min: 1, max: 64 };
/** A known capability (the closed list of @payin/permissions), checked before the merchants service checks it again. */
const CAPABILITY: FieldSpec = {
  ...SHORT,
  oneOf: { values: CAPABILITIES, message: UNKNOWN_CAPABILITY_MESSAGE, description: "a known capability; any other is 400 VALIDATION_ERROR listing them" },
};
const JURISDICTION: FieldSpec = { min: 2, max: 2, documented: { pattern: "^[A-Z]{2}$", description: "ISO 3166-1 alpha-2, upper case" } };
const EFFECT: FieldSpec = { ...SHORT, documented: { enum: ["allow", "deny"] } };
const SECRET_REFERENCE = { min: 1, max: 255 };

export const CONFIGURATION_ROUTES: readonly AdminRoute[] = [
  // Rules: posting closes the open version for (capability, jurisdiction) and opens a new one.
  {
    method: "POST",
    path: "/rules",
    permission: "rule.manage",
    mfa: "recent",
    body: { name: "RuleCreate", fields: { capability: CAPABILITY, jurisdiction: JURISDICTION, effect: EFFECT } },
    doc: {
      id: "createRule",
      tag: "configuration",
      summary: "Close the open rule version and create a new one",
      description: "400 VALIDATION_ERROR for an unknown capability, listing the known ones. 409 RULE_UNCHANGED, CONCURRENT_CHANGE.",
      ok: { 201: "RuleEnvelope" },
      refusals: [409],
      location: "the rule version's path",
    },
    async change({ ports, actor, checked }) {
      const rule = await createRule(ports, actor, async () => {
        const { body } = await checked();
        return { capability: body.capability!, jurisdiction: body.jurisdiction!, effect: body.effect! };
      });
      return { status: 201, location: `${ADMIN_PREFIX}/rules/${rule.ruleUuid}`, body: { rule: ruleView(rule) } };
    },
  },
  // Open versions only, unless include_closed=true; by capability, jurisdiction and version.
  {
    method: "GET",
    path: "/rules",
    permission: "rule.manage",
    query: { include_closed: { kind: "boolean", description: "also closed versions" } },
    paged: true,
    doc: { id: "listRules", tag: "configuration", summary: "List rules by capability, jurisdiction and version", ok: { 200: "RuleList" } },
    async read({ ports, query, page }) {
      const res = await ports.merchants.listRules({ includeClosed: query.include_closed === "true", limit: page.limit, offset: rpcOffset(page.offset) });
      return { body: listView(res.rules.map(ruleView), res.total, page) };
    },
  },
  // A rule version, open or closed: the resource a create's Location names.
  {
    method: "GET",
    path: "/rules/{rule_uuid}",
    permission: "rule.manage",
    doc: {
      id: "getRule",
      tag: "configuration",
      summary: "Read a rule version, open or closed",
      description: "404 RULE_NOT_FOUND: no such rule version, or a malformed uuid.",
      ok: { 200: "RuleEnvelope" },
      refusals: [404],
    },
    async read({ ports, param }) {
      return { body: { rule: ruleView((await ports.merchants.getRule({ ruleUuid: param("rule_uuid") })).rule!) } };
    },
  },
  {
    method: "PUT",
    path: "/merchants/{uuid}/operating-profile",
    permission: "policy.manage",
    mfa: "recent",
    body: { name: "OperatingProfileRequest", fields: { operating_mode: { ...SHORT, documented: { enum: [...OPERATING_MODES] } } } },
    doc: {
      id: "ensureOperatingProfile",
      tag: "configuration",
      summary: "Set the operating profile",
      description: "409 MERCHANT_CLOSED.",
      ok: { 200: "OperatingProfileEnvelope" },
      refusals: [404, 409],
    },
    async change({ ports, actor, param, checked }) {
      const profile = await ensureOperatingProfile(ports, actor, param("uuid"), async () => ({ operatingMode: (await checked()).body.operating_mode! }));
      return { body: { operating_profile: operatingProfileView(profile) } };
    },
  },
  // Policies: posting closes the merchant's open version for the scope and opens a new one.
  {
    method: "POST",
    path: "/merchants/{uuid}/policies",
    permission: "policy.manage",
    mfa: "recent",
    body: { name: "PolicyCreate", fields: { scope: { ...SHORT, documented: { enum: [...POLICY_SCOPES] } }, effect: EFFECT } },
    doc: {
      id: "createPolicy",
      tag: "configuration",
      summary: "Close the open policy for a scope and create a new version",
      description: "409 POLICY_UNCHANGED, MERCHANT_CLOSED, CONCURRENT_CHANGE.",
      ok: { 201: "PolicyEnvelope" },
      refusals: [404, 409],
      location: "the policy version's path",
    },
    async change({ ports, actor, param, checked }) {
      const uuid = param("uuid");
      const policy = await createPolicy(ports, actor, uuid, async () => {
        const { body } = await checked();
        return { scope: body.scope!, effect: body.effect! };
      });
      return { status: 201, location: `${ADMIN_PREFIX}/merchants/${uuid}/policies/${policy.policyUuid}`, body: { policy: policyView(policy) } };
    },
  },
  // A policy version, open or closed, closed merchants included; read with the permission that sets it.
  {
    method: "GET",
    path: "/merchants/{uuid}/policies/{policy_uuid}",
    permission: "policy.manage",
    doc: {
      id: "getPolicy",
      tag: "configuration",
      summary: "Read a policy version, open or closed, closed merchants included",
      description: "404 MERCHANT_NOT_FOUND; POLICY_NOT_FOUND for an unknown or malformed uuid, or another merchant's policy.",
      ok: { 200: "PolicyEnvelope" },
      refusals: [404],
    },
    async read({ ports, param }) {
      const res = await ports.merchants.getPolicy({ merchantUuid: param("uuid"), policyUuid: param("policy_uuid") });
      return { body: { policy: policyView(res.policy!) } };
    },
  },
  // Ensure: 201 when the binding was created, 200 when it existed.
  {
    method: "PUT",
    path: "/merchants/{uuid}/provider-bindings",
    permission: "provider.manage",
    mfa: "recent",
    body: { name: "ProviderBindingRequest", fields: { provider_uuid: { uuid: true }, capability: CAPABILITY, jurisdiction: JURISDICTION } },
    doc: {
      id: "ensureProviderBinding",
      tag: "configuration",
      summary: "Ensure a provider binding, idempotent: 201 created, 200 existing",
      description: "400 VALIDATION_ERROR for an unknown capability, listing the known ones. 404 MERCHANT_NOT_FOUND, PROVIDER_NOT_FOUND. 409 MERCHANT_CLOSED.",
      ok: { 200: "ProviderBindingEnvelope", 201: "ProviderBindingEnvelope" },
      refusals: [404, 409],
      location: "the binding's path",
    },
    async change({ ports, actor, param, checked }) {
      const uuid = param("uuid");
      const res = await ensureProviderBinding(ports, actor, uuid, async () => {
        const { body } = await checked();
        return { providerUuid: body.provider_uuid!, capability: body.capability!, jurisdiction: body.jurisdiction! };
      });
      const location = res.created ? `${ADMIN_PREFIX}/merchants/${uuid}/provider-bindings/${res.binding.bindingUuid}` : undefined;
      return { status: res.created ? 201 : 200, location, body: { provider_binding: bindingView(res.binding) } };
    },
  },
  {
    method: "GET",
    path: "/merchants/{uuid}/provider-bindings/{binding_uuid}",
    permission: "provider.manage",
    doc: {
      id: "getProviderBinding",
      tag: "configuration",
      summary: "Read a provider binding, closed merchants included",
      description: "404 MERCHANT_NOT_FOUND; BINDING_NOT_FOUND for an unknown or malformed uuid, or another merchant's binding.",
      ok: { 200: "ProviderBindingEnvelope" },
      refusals: [404],
    },
    async read({ ports, param }) {
      const res = await ports.merchants.getProviderBinding({ merchantUuid: param("uuid"), bindingUuid: param("binding_uuid") });
      return { body: { provider_binding: bindingView(res.binding!) } };
    },
  },
  // Ensure: 201 when created, 200 for a repeat (no reference, or the current one);
  // another reference is 409 CONNECTION_EXISTS (use rotate-secret).
  {
    method: "PUT",
    path: "/merchants/{uuid}/provider-connections",
    permission: "provider.manage",
    mfa: "recent",
    body: {
      name: "ProviderConnectionRequest",
      fields: { provider_uuid: { uuid: true }, secret_reference: { ...SECRET_REFERENCE, optional: true, description: "scheme:path, never a secret" } },
    },
    doc: {
      id: "ensureProviderConnection",
      tag: "configuration",
      summary: "Ensure a provider connection, secret reference only: 201 created, 200 existing",
      description: "404 MERCHANT_NOT_FOUND, PROVIDER_NOT_FOUND. 409 CONNECTION_EXISTS (another reference: rotate instead), MERCHANT_CLOSED.",
      ok: { 200: "ProviderConnectionEnvelope", 201: "ProviderConnectionEnvelope" },
      refusals: [404, 409],
      location: "the connection's path",
    },
    async change({ ports, actor, param, checked }) {
      const uuid = param("uuid");
      const res = await ensureProviderConnection(ports, actor, uuid, async () => {
        const { body } = await checked();
        return { providerUuid: body.provider_uuid!, secretReference: body.secret_reference };
      });
      const location = res.created ? `${ADMIN_PREFIX}/merchants/${uuid}/provider-connections/${res.connection.connectionUuid}` : undefined;
      return { status: res.created ? 201 : 200, location, body: { provider_connection: connectionView(res.connection) } };
    },
  },
  {
    method: "GET",
    path: "/merchants/{uuid}/provider-connections/{connection_uuid}",
    permission: "provider.manage",
    doc: {
      id: "getProviderConnection",
      tag: "configuration",
      summary: "Read a provider connection, its secret reference only, closed merchants included",
      description: "404 MERCHANT_NOT_FOUND; CONNECTION_NOT_FOUND for an unknown or malformed uuid, or another merchant's connection.",
      ok: { 200: "ProviderConnectionEnvelope" },
      refusals: [404],
    },
    async read({ ports, param }) {
      const res = await ports.merchants.getProviderConnection({ merchantUuid: param("uuid"), connectionUuid: param("connection_uuid") });
      return { body: { provider_connection: connectionView(res.connection!) } };
    },
  },
  {
    method: "POST",
    path: "/merchants/{uuid}/provider-connections/{connection_uuid}/rotate-secret",
    permission: "provider.manage",
    mfa: "recent",
    body: { name: "SecretReferenceRotation", fields: { secret_reference: SECRET_REFERENCE } },
    doc: {
      id: "rotateProviderConnectionSecret",
      tag: "configuration",
      summary: "Rotate a connection's secret reference",
      description: "404 CONNECTION_NOT_FOUND. 409 SECRET_REFERENCE_UNCHANGED, MERCHANT_CLOSED.",
      ok: { 200: "ProviderConnectionEnvelope" },
      refusals: [404, 409],
    },
    async change({ ports, actor, param, checked }) {
      const connection = await rotateConnectionSecret(ports, actor, param("uuid"), param("connection_uuid"), async () => ({
        secretReference: (await checked()).body.secret_reference!,
      }));
      return { body: { provider_connection: connectionView(connection) } };
    },
  },
  {
    method: "GET",
    path: "/providers",
    permission: "provider.manage",
    paged: true,
    doc: { id: "listProviders", tag: "configuration", summary: "List the provider registry by name", ok: { 200: "ProviderList" } },
    async read({ ports, page }) {
      const res = await ports.merchants.listProviders({ limit: page.limit, offset: rpcOffset(page.offset) });
      return { body: listView(res.providers.map(providerView), res.total, page) };
    },
  },
  {
    method: "POST",
    path: "/providers",
    permission: "provider.manage",
    mfa: "recent",
    body: {
      name: "ProviderCreate",
      fields: { name: { min: 1, max: 100, description: "unique regardless of letter case; no surrounding white space, control, bidirectional control or zero-width characters" } },
    },
    doc: {
      id: "createProvider",
      tag: "configuration",
      summary: "Register a provider",
      description: "409 PROVIDER_NAME_TAKEN (letter case ignored).",
      ok: { 201: "ProviderEnvelope" },
      refusals: [409],
      location: "the provider's path",
    },
    async change({ ports, actor, checked }) {
      const provider = await createProvider(ports, actor, async () => ({ name: (await checked()).body.name! }));
      return { status: 201, location: `${ADMIN_PREFIX}/providers/${provider.providerUuid}`, body: { provider: providerView(provider) } };
    },
  },
  {
    method: "GET",
    path: "/providers/{provider_uuid}",
    permission: "provider.manage",
    doc: {
      id: "getProvider",
      tag: "configuration",
      summary: "Read a provider of the registry",
      description: "404 PROVIDER_NOT_FOUND: no such provider, or a malformed uuid.",
      ok: { 200: "ProviderEnvelope" },
      refusals: [404],
    },
    async read({ ports, param }) {
      return { body: { provider: providerView((await ports.merchants.getProvider({ providerUuid: param("provider_uuid") })).provider!) } };
    },
  },
  // The receiving wallet lives in the allocation service, which knows no
  // merchants (see @payin/operations, receiving-wallet); the change is recorded there.
  {
    method: "PUT",
    path: "/merchants/{uuid}/wallet",
    permission: WALLET_PERMISSION,
    mfa: "recent",
    body: { name: "WalletRequest", fields: { xpub: { min: 1, max: 200, description: "account-level xpub of m/44'/60'/N', any hardened account N" } } },
    doc: {
      id: "setWallet",
      tag: "configuration",
      summary: "Set the receiving wallet, an account xpub of m/44'/60'/N'",
      description: "400 WALLET_XPUB_INVALID. 409 MERCHANT_CLOSED, WALLET_XPUB_IN_USE.",
      ok: { 200: "WalletEnvelope" },
      refusals: [404, 409],
    },
    async change({ ports, actor, param, checked }) {
      const wallet = await setReceivingWallet(ports, actor, param("uuid"), async () => ({ xpub: (await checked()).body.xpub! }));
      return { body: { wallet: walletView(wallet) } };
    },
  },
  // A read, like readiness: any merchant, closed ones included. Set with
  // provider.manage, read with it too (reading providers needs it as well).
  {
    method: "GET",
    path: "/merchants/{uuid}/wallet",
    permission: "provider.manage",
    doc: {
      id: "getWallet",
      tag: "configuration",
      summary: "Read the receiving wallet, closed merchants included",
      description: "404 MERCHANT_NOT_FOUND, or WALLET_NOT_FOUND when the merchant has none.",
      ok: { 200: "WalletEnvelope" },
      refusals: [404],
    },
    async read({ ports, param }) {
      return { body: { wallet: walletView(await readReceivingWallet(ports, param("uuid"))) } };
    },
  },
];
