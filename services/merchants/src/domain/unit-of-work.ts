import type { Actor, AuditStore } from "./audit.js";
import { changeEvent } from "./audit.js";
import type { MembershipStore } from "./membership.js";
import type { MerchantStore } from "./merchant.js";
import type { OperatingProfileStore } from "./operating-profile.js";
import type { PayinContextReader } from "./payin-context.js";
import type { PolicyStore } from "./policy.js";
import type { ProviderBindingStore, ProviderConnectionStore, ProviderStore } from "./provider.js";
import type { RuleStore } from "./rule.js";

/** Every store of the service, bound to one connection (and transaction, if any). */
export interface MerchantsStores {
  merchants: MerchantStore;
  memberships: MembershipStore;
  rules: RuleStore;
  profiles: OperatingProfileStore;
  policies: PolicyStore;
  providers: ProviderStore;
  bindings: ProviderBindingStore;
  connections: ProviderConnectionStore;
  audit: AuditStore;
}

/** Transactions over the stores. */
export interface UnitOfWork {
  /** Runs `work` in one transaction: everything it writes commits, or nothing does. */
  transaction<T>(work: (stores: MerchantsStores) => Promise<T>): Promise<T>;
  /** Stores for reads that need no transaction. */
  read(): MerchantsStores;
  /** The pay-in context, read on every pay-in create: one statement, no transaction. */
  readonly payinContexts: PayinContextReader;
}

/** What the operations of this service need from the outside world. */
export interface Deps {
  uow: UnitOfWork;
  now(): Date;
  newUuid(): string;
}

/**
 * Appends a succeeded audit event for a change, inside the transaction that
 * makes it, when the request named an actor.
 */
export async function recordChange(
  stores: MerchantsStores,
  deps: Deps,
  actor: Actor | null,
  change: { action: string; targetType: string; targetUuid: string },
): Promise<void> {
  if (actor) await stores.audit.append(changeEvent(actor, change, deps.newUuid(), deps.now()));
}
