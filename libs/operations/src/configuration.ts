/**
 * Platform configuration the merchants service keeps and records itself (the
 * request names the actor): rules, operating profiles, policies, the provider
 * registry, provider bindings and connections. Value rules (capability and
 * jurisdiction forms, the secret reference form) are the service's.
 */
import type { merchantsV1 } from "@payin/proto";
import { audited, type Actor } from "./audit.js";
import type { MerchantPorts } from "./merchants.js";
import type { Prepare } from "./ports.js";

/** Opens a new version of the rule for (capability, jurisdiction), closing the open one. */
export function createRule(ports: MerchantPorts, actor: Actor, prepare: Prepare<{ capability: string; jurisdiction: string; effect: string }>): Promise<merchantsV1.Rule> {
  return audited(ports, actor, { action: "rule.create", target: { type: "rule" }, successRecordedBy: "merchants" }, async () => {
    return (await ports.merchants.createRule({ ...(await prepare()), actor })).rule!;
  });
}

/** Sets a merchant's operating profile (creates or updates it). */
export function ensureOperatingProfile(ports: MerchantPorts, actor: Actor, merchantUuid: string, prepare: Prepare<{ operatingMode: string }>): Promise<merchantsV1.OperatingProfile> {
  const spec = { action: "merchant.operating_profile.ensure", target: { type: "merchant", uuid: merchantUuid }, successRecordedBy: "merchants" } as const;
  return audited(ports, actor, spec, async () => {
    return (await ports.merchants.ensureOperatingProfile({ merchantUuid, ...(await prepare()), actor })).profile!;
  });
}

/** Opens a new version of the merchant's policy for a scope, closing the open one. */
export function createPolicy(ports: MerchantPorts, actor: Actor, merchantUuid: string, prepare: Prepare<{ scope: string; effect: string }>): Promise<merchantsV1.Policy> {
  return audited(ports, actor, { action: "policy.create", target: { type: "merchant", uuid: merchantUuid }, successRecordedBy: "merchants" }, async () => {
    return (await ports.merchants.createPolicy({ merchantUuid, ...(await prepare()), actor })).policy!;
  });
}

/** Registers a provider (its name unique, letter case ignored). */
export function createProvider(ports: MerchantPorts, actor: Actor, prepare: Prepare<{ name: string }>): Promise<merchantsV1.Provider> {
  return audited(ports, actor, { action: "provider.create", target: { type: "provider" }, successRecordedBy: "merchants" }, async () => {
    return (await ports.merchants.createProvider({ ...(await prepare()), actor })).provider!;
  });
}

/** Binds a provider to a merchant for (capability, jurisdiction); `created` is false when it was. */
export function ensureProviderBinding(
  ports: MerchantPorts,
  actor: Actor,
  merchantUuid: string,
  prepare: Prepare<{ providerUuid: string; capability: string; jurisdiction: string }>,
): Promise<{ binding: merchantsV1.ProviderBinding; created: boolean }> {
  return audited(ports, actor, { action: "provider_binding.create", target: { type: "merchant", uuid: merchantUuid }, successRecordedBy: "merchants" }, async () => {
    const res = await ports.merchants.ensureProviderBinding({ merchantUuid, ...(await prepare()), actor });
    return { binding: res.binding!, created: res.created };
  });
}

/**
 * Connects a merchant to a provider with a secret reference (never a secret):
 * `created` is false for a repeat; another reference is 409 CONNECTION_EXISTS.
 */
export function ensureProviderConnection(
  ports: MerchantPorts,
  actor: Actor,
  merchantUuid: string,
  prepare: Prepare<{ providerUuid: string; secretReference?: string }>,
): Promise<{ connection: merchantsV1.ProviderConnection; created: boolean }> {
  return audited(ports, actor, { action: "provider_connection.create", target: { type: "merchant", uuid: merchantUuid }, successRecordedBy: "merchants" }, async () => {
    const res = await ports.merchants.ensureProviderConnection({ merchantUuid, ...(await prepare()), actor });
    return { connection: res.connection!, created: res.created };
  });
}

/** Replaces a connection's secret reference. */
export function rotateConnectionSecret(
  ports: MerchantPorts,
  actor: Actor,
  merchantUuid: string,
  connectionUuid: string,
  prepare: Prepare<{ secretReference: string }>,
): Promise<merchantsV1.ProviderConnection> {
  const spec = { action: "provider_connection.rotate_secret", target: { type: "provider_connection", uuid: connectionUuid }, successRecordedBy: "merchants" } as const;
  return audited(ports, actor, spec, async () => {
    return (await ports.merchants.rotateProviderConnectionSecret({ merchantUuid, connectionUuid, ...(await prepare()), actor })).connection!;
  });
}
