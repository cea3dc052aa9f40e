import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { optionalActor, type ActorInput } from "./audit.js";
import { getMerchant, requireOpenMerchant } from "./merchant.js";
import { MerchantsReason } from "./reasons.js";
import { recordChange, type Deps, type MerchantsStores } from "./unit-of-work.js";
import { charLength } from "@payin/http/text";
import { checkCapability, checkDisplayText, checkJurisdiction, checkMerchantUuid, checkUuid, invalid, optionalPage, type Page } from "./validation.js";

/** An observation/network provider of the registry. */
export interface Provider {
  providerUuid: string;
  /** 1 to 100 characters; unique regardless of letter case. */
  name: string;
  createdAt: Date;
}

/** A provider serving a merchant for a capability in a jurisdiction. */
export interface ProviderBinding {
  bindingUuid: string;
  merchantUuid: string;
  providerUuid: string;
  capability: string;
  jurisdiction: string;
  createdAt: Date;
}

/**
 * A merchant's connection to a provider. It holds a *reference* to a secret
 * kept elsewhere (a vault path, an environment variable name), never a secret.
 */
export interface ProviderConnection {
  connectionUuid: string;
  merchantUuid: string;
  providerUuid: string;
  secretReference: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Storage of the provider registry. */
export interface ProviderStore {
  /** False when the name is taken (whatever its letter case). */
  insert(provider: Provider): Promise<boolean>;
  find(providerUuid: string): Promise<Provider | null>;
  /** Providers by name: one page when `page` is given, else all; and how many there are. */
  list(page?: Page): Promise<{ providers: Provider[]; total: number }>;
}

/** Storage of provider bindings. */
export interface ProviderBindingStore {
  /** Inserts unless the (merchant, provider, capability, jurisdiction) tuple exists; true when inserted. */
  insertIfAbsent(binding: ProviderBinding): Promise<boolean>;
  find(key: Omit<ProviderBinding, "bindingUuid" | "createdAt">): Promise<ProviderBinding | null>;
  /** The merchant's binding with the uuid; null for another merchant's. */
  findByUuid(merchantUuid: string, bindingUuid: string): Promise<ProviderBinding | null>;
}

/** Storage of provider connections. */
export interface ProviderConnectionStore {
  /** Inserts unless the merchant already has a connection to the provider; true when inserted. */
  insertIfAbsent(connection: ProviderConnection): Promise<boolean>;
  findByProvider(merchantUuid: string, providerUuid: string): Promise<ProviderConnection | null>;
  /** The merchant's connection with the uuid; null for another merchant's. */
  findByUuid(merchantUuid: string, connectionUuid: string): Promise<ProviderConnection | null>;
  /** The merchant's connection, locked until the transaction ends; null for another merchant's. */
  lock(merchantUuid: string, connectionUuid: string): Promise<ProviderConnection | null>;
  setSecretReference(connectionUuid: string, secretReference: string, at: Date): Promise<ProviderConnection>;
}

/** The provider seeded by the migration, for EVM JSON-RPC chain observation. */
export const EVM_RPC_PROVIDER_UUID = "01a2008d-7400-7000-8000-000000000001";

const SECRET_REFERENCE = /^[a-z][a-z0-9+.-]*:[^\s\u0000]+$/;

/**
 * Checks a secret reference: `scheme:path` (e.g. `vault:kv/payin/acme`,
 * `env:EVM_RPC_KEY`), 1 to 255 characters. The value is never echoed: whatever
 * was sent in its place might be a secret pasted by mistake.
 */
export function checkSecretReference(value: string): string {
  const length = charLength(value);
  if (length < 1 || length > 255 || !SECRET_REFERENCE.test(value)) {
    invalid("secret_reference must be a reference of the form scheme:path (1 to 255 characters), never a secret");
  }
  return value;
}

function checkProviderName(value: string): string {
  const length = charLength(value);
  if (length < 1 || length > 100) invalid("name must be 1 to 100 characters");
  if (value.trim() !== value || /\p{Cc}/u.test(value)) {
    invalid("name must not start or end with white space or contain control characters");
  }
  return checkDisplayText("name", value);
}

async function requireProvider(stores: MerchantsStores, providerUuid: string): Promise<Provider> {
  const provider = await stores.providers.find(providerUuid);
  if (!provider) throw new DomainError(MerchantsReason.ProviderNotFound, "provider not found");
  return provider;
}

/** Registers a provider. PROVIDER_NAME_TAKEN when the name exists (letter case ignored). */
export async function createProvider(deps: Deps, input: { name: string; actor?: ActorInput }): Promise<Provider> {
  const name = checkProviderName(input.name);
  const actor = optionalActor(input.actor);
  const provider: Provider = { providerUuid: deps.newUuid(), name, createdAt: deps.now() };
  return deps.uow.transaction(async (stores) => {
    if (!(await stores.providers.insert(provider))) {
      throw new DomainError(MerchantsReason.ProviderNameTaken, "a provider with this name exists");
    }
    await recordChange(stores, deps, actor, { action: "provider.create", targetType: "provider", targetUuid: provider.providerUuid });
    return provider;
  });
}

/**
 * Binds a provider to a merchant for (capability, jurisdiction); idempotent on
 * that tuple. PROVIDER_NOT_FOUND for an unknown provider, MERCHANT_CLOSED for a
 * closed merchant.
 */
export async function ensureProviderBinding(
  deps: Deps,
  input: { merchantUuid: string; providerUuid: string; capability: string; jurisdiction: string; actor?: ActorInput },
): Promise<{ binding: ProviderBinding; created: boolean }> {
  const providerUuid = checkUuid("provider_uuid", input.providerUuid);
  const capability = checkCapability(input.capability);
  const jurisdiction = checkJurisdiction(input.jurisdiction);
  const actor = optionalActor(input.actor);
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  return deps.uow.transaction(async (stores) => {
    await requireOpenMerchant(stores, merchantUuid);
    await requireProvider(stores, providerUuid);
    const key = { merchantUuid, providerUuid, capability, jurisdiction };
    const binding: ProviderBinding = { bindingUuid: deps.newUuid(), ...key, createdAt: deps.now() };
    if (await stores.bindings.insertIfAbsent(binding)) {
      await recordChange(stores, deps, actor, {
        action: "provider_binding.create",
        targetType: "provider_binding",
        targetUuid: binding.bindingUuid,
      });
      return { binding, created: true };
    }
    const existing = await stores.bindings.find(key);
    if (!existing) throw new Error("provider binding vanished after a conflicting insert");
    return { binding: existing, created: false };
  });
}

/**
 * Creates the merchant's connection to a provider, or answers the existing one
 * (`created: false`). A request that names a secret reference other than the
 * existing connection's gets CONNECTION_EXISTS: changing it is a rotation, a
 * separate and audited act. One that names none, or the same one, is a repeat.
 */
export async function ensureProviderConnection(
  deps: Deps,
  input: { merchantUuid: string; providerUuid: string; secretReference?: string; actor?: ActorInput },
): Promise<{ connection: ProviderConnection; created: boolean }> {
  const providerUuid = checkUuid("provider_uuid", input.providerUuid);
  const secretReference = input.secretReference === undefined ? null : checkSecretReference(input.secretReference);
  const actor = optionalActor(input.actor);
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  return deps.uow.transaction(async (stores) => {
    await requireOpenMerchant(stores, merchantUuid);
    await requireProvider(stores, providerUuid);
    const now = deps.now();
    const connection: ProviderConnection = {
      connectionUuid: deps.newUuid(),
      merchantUuid,
      providerUuid,
      secretReference,
      createdAt: now,
      updatedAt: now,
    };
    if (await stores.connections.insertIfAbsent(connection)) {
      await recordChange(stores, deps, actor, {
        action: "provider_connection.create",
        targetType: "provider_connection",
        targetUuid: connection.connectionUuid,
      });
      return { connection, created: true };
    }
    const existing = await stores.connections.findByProvider(merchantUuid, providerUuid);
    if (!existing) throw new Error("provider connection vanished after a conflicting insert");
    if (secretReference !== null && secretReference !== existing.secretReference) {
      throw new DomainError(
        MerchantsReason.ConnectionExists,
        "the merchant already has a connection to this provider with another secret reference; rotate it instead",
      );
    }
    return { connection: existing, created: false };
  });
}

/**
 * Replaces a connection's secret reference, audited as
 * `provider_connection.rotate_secret`. CONNECTION_NOT_FOUND for an unknown
 * connection or another merchant's; SECRET_REFERENCE_UNCHANGED when it is the
 * current one; MERCHANT_CLOSED for a closed merchant.
 */
export async function rotateProviderConnectionSecret(
  deps: Deps,
  input: { merchantUuid: string; connectionUuid: string; secretReference: string; actor?: ActorInput },
): Promise<ProviderConnection> {
  const secretReference = checkSecretReference(input.secretReference);
  const actor = optionalActor(input.actor);
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  const notFound = () => new DomainError(MerchantsReason.ConnectionNotFound, "provider connection not found");
  if (!isUuid(input.connectionUuid)) throw notFound();
  return deps.uow.transaction(async (stores) => {
    await requireOpenMerchant(stores, merchantUuid);
    const current = await stores.connections.lock(merchantUuid, input.connectionUuid);
    if (!current) throw notFound();
    if (current.secretReference === secretReference) {
      throw new DomainError(MerchantsReason.SecretReferenceUnchanged, "the connection already uses this secret reference");
    }
    const rotated = await stores.connections.setSecretReference(current.connectionUuid, secretReference, deps.now());
    await recordChange(stores, deps, actor, {
      action: "provider_connection.rotate_secret",
      targetType: "provider_connection",
      targetUuid: current.connectionUuid,
    });
    return rotated;
  });
}

/** The provider registry, by name; one page of it when a limit is given. */
export async function listProviders(store: ProviderStore, input: { limit?: number; offset: number }): Promise<{ providers: Provider[]; total: number }> {
  return store.list(optionalPage(input.limit, input.offset));
}

/** One provider of the registry. PROVIDER_NOT_FOUND for an unknown or malformed uuid. */
export async function getProvider(store: ProviderStore, providerUuid: string): Promise<Provider> {
  const provider = isUuid(providerUuid) ? await store.find(providerUuid) : null;
  if (!provider) throw new DomainError(MerchantsReason.ProviderNotFound, "provider not found");
  return provider;
}

/**
 * One of the merchant's provider bindings, closed merchants included.
 * MERCHANT_NOT_FOUND for an unknown or malformed merchant uuid; BINDING_NOT_FOUND
 * for an unknown or malformed binding uuid, or another merchant's.
 */
export async function getProviderBinding(stores: MerchantsStores, input: { merchantUuid: string; bindingUuid: string }): Promise<ProviderBinding> {
  const merchant = await getMerchant(stores.merchants, checkMerchantUuid(input.merchantUuid));
  const binding = isUuid(input.bindingUuid) ? await stores.bindings.findByUuid(merchant.uuid, input.bindingUuid) : null;
  if (!binding) throw new DomainError(MerchantsReason.BindingNotFound, "provider binding not found");
  return binding;
}

/**
 * One of the merchant's provider connections, closed merchants included.
 * MERCHANT_NOT_FOUND for an unknown or malformed merchant uuid;
 * CONNECTION_NOT_FOUND for an unknown or malformed connection uuid, or another merchant's.
 */
export async function getProviderConnection(
  stores: MerchantsStores,
  input: { merchantUuid: string; connectionUuid: string },
): Promise<ProviderConnection> {
  const merchant = await getMerchant(stores.merchants, checkMerchantUuid(input.merchantUuid));
  const connection = isUuid(input.connectionUuid) ? await stores.connections.findByUuid(merchant.uuid, input.connectionUuid) : null;
  if (!connection) throw new DomainError(MerchantsReason.ConnectionNotFound, "provider connection not found");
  return connection;
}
