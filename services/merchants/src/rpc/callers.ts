import { merchantsV1 } from "@payin/proto";
import { ALL_METHODS, allowCallers } from "@payin/rpc";

/** The admin surface: merchants, members, rules, policies, profiles, providers, the audit log. */
const ADMIN = [
  "createMerchant",
  "getMerchant",
  "transitionMerchant",
  "listMerchants",
  "ensureMember",
  "listMemberships",
  "removeMember",
  "createRule",
  "listRules",
  "getRule",
  "ensureOperatingProfile",
  "createPolicy",
  "getPolicy",
  "createProvider",
  "listProviders",
  "getProvider",
  "ensureProviderBinding",
  "getProviderBinding",
  "ensureProviderConnection",
  "getProviderConnection",
  "rotateProviderConnectionSecret",
  "recordAuditEvent",
  "listAuditEvents",
] as const;

/** The admin API's reads of one rule, policy, provider, binding or connection (what a create's Location names); the CLI lists instead. */
const READ_ONE: readonly (typeof ADMIN)[number][] = ["getRule", "getPolicy", "getProvider", "getProviderBinding", "getProviderConnection"];

/**
 * Which internal caller may call which merchants RPC: docs/callers.md is generated from
 * this (npm run docs:callers), and a test fails when a caller is let call what its code never calls.
 * A caller not listed may call none.
 */
export const CALLERS = allowCallers(merchantsV1.MerchantsService, {
  // The API gateway: the admin API, and the memberships of merchant users.
  api: [...ADMIN],
  // The hosted checkout: the merchant shown to payers and signed-in members, and members' merchants.
  checkout: ["getMerchant", "listMemberships"],
  // payins reads the pay-in context of a merchant it creates a pay-in for, and
  // follows the feed of their changes to keep the answers.
  payins: ["getPayinContext", "watchPayinContextChanges", "getPayinContextFeedPosition"],
  // allocation reads what a merchant's readiness is made of: the same pay-in
  // context payins decides a create from (in a jurisdiction, or merchant-wide).
  allocation: ["getPayinContext", "appendAuditEvents"],
  // The operator CLI: the admin surface, as the API's admin routes have it, but
  // for the reads of one resource it never makes.
  payinctl: ADMIN.filter((method) => !READ_ONE.includes(method)),
  // npm start's own provisioning: its demo merchant, bound and connected to the seeded provider so that it is
  // ready to take pay-ins. Never given a digest in a deployment.
  stack: [
    "createRule",
    "createMerchant",
    "transitionMerchant",
    "createPolicy",
    "ensureOperatingProfile",
    "ensureProviderBinding",
    "ensureProviderConnection",
  ],
  // The identity service's outbox relay: the audit events of its own changes.
  identity: ["appendAuditEvents"],
  // The notifications service's outbox relay: the audit events of webhook endpoint changes and redeliveries.
  notifications: ["appendAuditEvents"],
  // The test harness and the benchmark only: never given a digest in a deployment.
  test: ALL_METHODS,
});
