/**
 * Platform configuration: rules, operating profiles, policies, the provider
 * registry, provider bindings and connections (merchants service), and the
 * receiving wallet (allocation service). Value rules (capability and
 * jurisdiction forms, secret reference form, xpub validity) are the services';
 * the gateway checks the body's shape and types. The changes and their audit
 * are @payin/operations'.
 */
import type Router from "@koa/router";
import type { AppDeps } from "../../deps.js";
import { requirePermission, requireRecentMfa } from "../../auth/authenticator.js";
import { isUuidAnyCase } from "@payin/ids";
import { isCountryCode } from "@payin/ids/countries";
import { ApiError, listPage, optionalString, PAGE_PARAMETERS, readQuery, requiredString, rpcOffset, UUID_RULE, validationError, type Body } from "@payin/http";
import { isCapability, UNKNOWN_CAPABILITY_MESSAGE } from "@payin/permissions";
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
  readinessView,
  readReceivingWallet,
  rotateConnectionSecret,
  ruleView,
  setReceivingWallet,
  walletView,
} from "@payin/operations";
import { actorOf, operationPorts } from "../../operations.js";
import { param, readBody } from "./common.js";

const SHORT = { min: 1, max: 64 };
const JURISDICTION = { min: 2, max: 2 };
const SECRET_REFERENCE = { min: 1, max: 255 };
const ADMIN = "/api/v1/admin";

/** A known capability (the closed list of @payin/permissions), checked before the merchants service checks it again. */
function capabilityField(body: Body): string {
  const capability = requiredString(body, "capability", SHORT);
  if (!isCapability(capability)) throw validationError(UNKNOWN_CAPABILITY_MESSAGE);
  return capability;
}

export function configurationRoutes(router: Router, deps: Pick<AppDeps, "auth" | "merchants" | "allocation" | "logger">): void {
  const ports = operationPorts(deps);
  // Rules: posting closes the open version for (capability, jurisdiction) and opens a new one.
  router.post("/rules", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const rule = await createRule(ports, actorOf(ctx, principal), async () => {
      requirePermission(principal, "rule.manage");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      const body = await readBody(ctx, ["capability", "jurisdiction", "effect"]);
      return { capability: capabilityField(body), jurisdiction: requiredString(body, "jurisdiction", JURISDICTION), effect: requiredString(body, "effect", SHORT) };
    });
    ctx.status = 201;
    ctx.set("location", `${ADMIN}/rules/${rule.ruleUuid}`);
    ctx.body = { rule: ruleView(rule) };
  });

  // Open versions only, unless include_closed=true; by capability, jurisdiction and version.
  router.get("/rules", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "rule.manage");
    const query = readQuery(ctx, ["include_closed", ...PAGE_PARAMETERS]);
    const page = listPage(query);
    if (query.include_closed !== undefined && query.include_closed !== "true" && query.include_closed !== "false") {
      throw validationError("include_closed must be true or false");
    }
    const res = await deps.merchants.listRules({ includeClosed: query.include_closed === "true", limit: page.limit, offset: rpcOffset(page.offset) });
    ctx.body = listView(res.rules.map(ruleView), res.total, page);
  });

  // A rule version, open or closed: the resource a create's Location names.
  router.get("/rules/:rule_uuid", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "rule.manage");
    readQuery(ctx, []);
    const res = await deps.merchants.getRule({ ruleUuid: param(ctx, "rule_uuid") });
    ctx.body = { rule: ruleView(res.rule!) };
  });

  router.put("/merchants/:uuid/operating-profile", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const profile = await ensureOperatingProfile(ports, actorOf(ctx, principal), param(ctx, "uuid"), async () => {
      requirePermission(principal, "policy.manage");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      const body = await readBody(ctx, ["operating_mode"]);
      return { operatingMode: requiredString(body, "operating_mode", SHORT) };
    });
    ctx.body = { operating_profile: operatingProfileView(profile) };
  });

  // Policies: posting closes the merchant's open version for the scope and opens a new one.
  router.post("/merchants/:uuid/policies", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const uuid = param(ctx, "uuid");
    const policy = await createPolicy(ports, actorOf(ctx, principal), uuid, async () => {
      requirePermission(principal, "policy.manage");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      const body = await readBody(ctx, ["scope", "effect"]);
      return { scope: requiredString(body, "scope", SHORT), effect: requiredString(body, "effect", SHORT) };
    });
    ctx.status = 201;
    ctx.set("location", `${ADMIN}/merchants/${uuid}/policies/${policy.policyUuid}`);
    ctx.body = { policy: policyView(policy) };
  });

  // A policy version, open or closed, closed merchants included; read with the permission that sets it.
  router.get("/merchants/:uuid/policies/:policy_uuid", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "policy.manage");
    readQuery(ctx, []);
    const res = await deps.merchants.getPolicy({ merchantUuid: param(ctx, "uuid"), policyUuid: param(ctx, "policy_uuid") });
    ctx.body = { policy: policyView(res.policy!) };
  });

  router.get("/providers", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "provider.manage");
    const page = listPage(readQuery(ctx, PAGE_PARAMETERS));
    const res = await deps.merchants.listProviders({ limit: page.limit, offset: rpcOffset(page.offset) });
    ctx.body = listView(res.providers.map(providerView), res.total, page);
  });

  router.post("/providers", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const provider = await createProvider(ports, actorOf(ctx, principal), async () => {
      requirePermission(principal, "provider.manage");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      const body = await readBody(ctx, ["name"]);
      return { name: requiredString(body, "name", { min: 1, max: 100 }) };
    });
    ctx.status = 201;
    ctx.set("location", `${ADMIN}/providers/${provider.providerUuid}`);
    ctx.body = { provider: providerView(provider) };
  });

  router.get("/providers/:provider_uuid", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "provider.manage");
    readQuery(ctx, []);
    const res = await deps.merchants.getProvider({ providerUuid: param(ctx, "provider_uuid") });
    ctx.body = { provider: providerView(res.provider!) };
  });

  // Ensure: 201 when the binding was created, 200 when it existed.
  router.put("/merchants/:uuid/provider-bindings", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const uuid = param(ctx, "uuid");
    const res = await ensureProviderBinding(ports, actorOf(ctx, principal), uuid, async () => {
      requirePermission(principal, "provider.manage");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      const body = await readBody(ctx, ["provider_uuid", "capability", "jurisdiction"]);
      return {
        providerUuid: requiredString(body, "provider_uuid", UUID_RULE).toLowerCase(),
        capability: capabilityField(body),
        jurisdiction: requiredString(body, "jurisdiction", JURISDICTION),
      };
    });
    ctx.status = res.created ? 201 : 200;
    if (res.created) ctx.set("location", `${ADMIN}/merchants/${uuid}/provider-bindings/${res.binding.bindingUuid}`);
    ctx.body = { provider_binding: bindingView(res.binding) };
  });

  router.get("/merchants/:uuid/provider-bindings/:binding_uuid", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "provider.manage");
    readQuery(ctx, []);
    const res = await deps.merchants.getProviderBinding({ merchantUuid: param(ctx, "uuid"), bindingUuid: param(ctx, "binding_uuid") });
    ctx.body = { provider_binding: bindingView(res.binding!) };
  });

  // Ensure: 201 when created, 200 for a repeat (no reference, or the current one);
  // another reference is 409 CONNECTION_EXISTS (use rotate-secret).
  router.put("/merchants/:uuid/provider-connections", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const uuid = param(ctx, "uuid");
    const res = await ensureProviderConnection(ports, actorOf(ctx, principal), uuid, async () => {
      requirePermission(principal, "provider.manage");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      const body = await readBody(ctx, ["provider_uuid", "secret_reference"]);
      return {
        providerUuid: requiredString(body, "provider_uuid", UUID_RULE).toLowerCase(),
        secretReference: optionalString(body, "secret_reference", SECRET_REFERENCE),
      };
    });
    ctx.status = res.created ? 201 : 200;
    if (res.created) ctx.set("location", `${ADMIN}/merchants/${uuid}/provider-connections/${res.connection.connectionUuid}`);
    ctx.body = { provider_connection: connectionView(res.connection) };
  });

  router.get("/merchants/:uuid/provider-connections/:connection_uuid", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "provider.manage");
    readQuery(ctx, []);
    const res = await deps.merchants.getProviderConnection({ merchantUuid: param(ctx, "uuid"), connectionUuid: param(ctx, "connection_uuid") });
    ctx.body = { provider_connection: connectionView(res.connection!) };
  });

  router.post("/merchants/:uuid/provider-connections/:connection_uuid/rotate-secret", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const connection = await rotateConnectionSecret(ports, actorOf(ctx, principal), param(ctx, "uuid"), param(ctx, "connection_uuid"), async () => {
      requirePermission(principal, "provider.manage");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      const body = await readBody(ctx, ["secret_reference"]);
      return { secretReference: requiredString(body, "secret_reference", SECRET_REFERENCE) };
    });
    ctx.body = { provider_connection: connectionView(connection) };
  });

  // The receiving wallet lives in the allocation service, which knows no
  // merchants (see @payin/operations, receiving-wallet); the change is recorded there.
  router.put("/merchants/:uuid/wallet", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const wallet = await setReceivingWallet(ports, actorOf(ctx, principal), param(ctx, "uuid"), async () => {
      requirePermission(principal, "provider.manage");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      const body = await readBody(ctx, ["xpub"]);
      return { xpub: requiredString(body, "xpub", { min: 1, max: 200 }) };
    });
    ctx.body = { wallet: walletView(wallet) };
  });

  // A read, like readiness: any merchant, closed ones included. Set with
  // provider.manage, read with it too (reading providers needs it as well).
  router.get("/merchants/:uuid/wallet", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "provider.manage");
    readQuery(ctx, []);
    ctx.body = { wallet: walletView(await readReceivingWallet(deps, param(ctx, "uuid"))) };
  });

  // Readiness is decided by the allocation service, from the merchant's side
  // (merchants service) and its own (wallet, address space), for pay-ins in
  // `?jurisdiction=` (its rule and provider binding count, as at pay-in create)
  // or merchant-wide without it. A read: any merchant, closed ones included;
  // an unknown or malformed uuid is 404.
  router.get("/merchants/:uuid/readiness", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "merchant.read");
    const query = readQuery(ctx, ["jurisdiction"]);
    const uuid = param(ctx, "uuid");
    if (!isUuidAnyCase(uuid)) throw new ApiError("MERCHANT_NOT_FOUND", "merchant not found");
    const jurisdiction = query.jurisdiction;
    if (jurisdiction !== undefined && !isCountryCode(jurisdiction)) {
      throw validationError("jurisdiction must be an assigned ISO 3166-1 alpha-2 code in upper case, e.g. DE");
    }
    const res = await deps.allocation.getReadiness({ merchantUuid: uuid, jurisdiction });
    ctx.body = { readiness: readinessView(uuid, res.pairs) };
  });
}
