import { DomainError } from "@payin/errors";
import { optionalActor, type ActorInput } from "./audit.js";
import { MerchantsReason } from "./reasons.js";
import { recordChange, type Deps, type MerchantsStores } from "./unit-of-work.js";
import { checkDisplayText, checkMerchantUuid, checkPage, checkUuid } from "./validation.js";

export type MerchantStatus = "inactive" | "active" | "suspended" | "closed";
export type MerchantTransition = "activate" | "deactivate" | "suspend" | "close";

export interface Merchant {
  uuid: string;
  displayName: string;
  legalName: string | null;
  status: MerchantStatus;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Allowed source states of each transition; the target is fixed. Anything else,
 * including a transition to the state the merchant is already in, is refused.
 * `closed` is terminal: no transition leaves it.
 */
export const TRANSITIONS: Record<MerchantTransition, { from: readonly MerchantStatus[]; to: MerchantStatus }> = {
  activate: { from: ["inactive", "suspended"], to: "active" },
  deactivate: { from: ["active", "suspended"], to: "inactive" },
  suspend: { from: ["active"], to: "suspended" },
  close: { from: ["inactive", "active", "suspended"], to: "closed" },
};

/** Exact filters and page of a merchant listing. */
export interface MerchantFilter {
  limit: number;
  offset: number;
  status?: MerchantStatus;
  uuid?: string;
  displayName?: string;
}

/** Storage the merchant rules need. */
export interface MerchantStore {
  insert(merchant: Merchant): Promise<void>;
  find(uuid: string): Promise<Merchant | null>;
  /**
   * Reads the merchant and holds a share lock on its row until the transaction
   * ends, so its status cannot change while a dependent record is written.
   */
  lockForChange(uuid: string): Promise<Merchant | null>;
  /** Atomically moves the merchant to `to` if its status is in `from`; null if it was not. */
  transition(uuid: string, from: readonly MerchantStatus[], to: MerchantStatus, at: Date): Promise<Merchant | null>;
  /** A page, newest first, and the number of merchants that match the filter. */
  list(filter: MerchantFilter): Promise<{ merchants: Merchant[]; total: number }>;
}

function checkLength(field: string, value: string, min: number, max: number): void {
  const length = [...value].length;
  if (length < min || length > max) {
    throw new DomainError(MerchantsReason.InvalidArgument, `${field} must be ${min} to ${max} characters`);
  }
  checkStorable(field, value);
  checkDisplayText(field, value);
}

/** PostgreSQL text cannot hold U+0000: INVALID_ARGUMENT rather than a failed statement. */
function checkStorable(field: string, value: string): void {
  if (value.includes("\u0000")) throw new DomainError(MerchantsReason.InvalidArgument, `${field} must not contain the character U+0000`);
}

/** Validates and builds a new merchant; always `inactive`. */
export function newMerchant(input: { uuid: string; displayName: string; legalName?: string | null; now: Date }): Merchant {
  checkLength("display_name", input.displayName, 1, 150);
  if (input.displayName.trim() === "") throw new DomainError(MerchantsReason.InvalidArgument, "display_name must not be blank");
  if (input.legalName !== undefined && input.legalName !== null) {
    checkLength("legal_name", input.legalName, 1, 255);
    if (input.legalName.trim() === "") throw new DomainError(MerchantsReason.InvalidArgument, "legal_name must not be blank");
  }
  return {
    uuid: input.uuid,
    displayName: input.displayName,
    legalName: input.legalName ?? null,
    status: "inactive",
    createdAt: input.now,
    updatedAt: input.now,
  };
}

/**
 * The merchant, unless it is closed: a closed merchant stays readable but its
 * configuration is frozen (MERCHANT_CLOSED), both what this service keeps and
 * what other services keep for it (its machine credentials, its receiving wallet).
 */
export function refuseClosed(merchant: Merchant): Merchant {
  if (merchant.status === "closed") {
    throw new DomainError(MerchantsReason.MerchantClosed, "the merchant is closed; its configuration can no longer change");
  }
  return merchant;
}

/**
 * Reads a merchant or fails with MERCHANT_NOT_FOUND; with `requireOpen`, a
 * closed one fails with MERCHANT_CLOSED (refuseClosed), for a caller about to
 * change what another service keeps for the merchant.
 */
export async function getMerchant(store: MerchantStore, uuid: string, options: { requireOpen?: boolean } = {}): Promise<Merchant> {
  const merchant = await store.find(uuid);
  if (!merchant) throw new DomainError(MerchantsReason.MerchantNotFound, "merchant not found");
  return options.requireOpen ? refuseClosed(merchant) : merchant;
}

/** Applies a lifecycle transition under the table above, atomically. */
export async function transitionMerchant(
  store: MerchantStore,
  uuid: string,
  transition: MerchantTransition,
  now: Date,
): Promise<Merchant> {
  const rule = TRANSITIONS[transition];
  const moved = await store.transition(uuid, rule.from, rule.to, now);
  if (moved) return moved;
  const current = await getMerchant(store, uuid);
  throw new DomainError(
    MerchantsReason.TransitionNotAllowed,
    `cannot ${transition} a merchant that is ${current.status}`,
  );
}

/** Creates a merchant (always `inactive`) and audits it when an actor is named. */
export async function createMerchant(
  deps: Deps,
  input: { displayName: string; legalName?: string | null; actor?: ActorInput },
): Promise<Merchant> {
  const merchant = newMerchant({ uuid: deps.newUuid(), displayName: input.displayName, legalName: input.legalName, now: deps.now() });
  const actor = optionalActor(input.actor);
  return deps.uow.transaction(async (stores) => {
    await stores.merchants.insert(merchant);
    await recordChange(stores, deps, actor, { action: "merchant.create", targetType: "merchant", targetUuid: merchant.uuid });
    return merchant;
  });
}

/** Applies a lifecycle transition and audits it (as `merchant.<transition>`) in one transaction. */
export async function changeMerchantStatus(
  deps: Deps,
  input: { uuid: string; transition: MerchantTransition; actor?: ActorInput },
): Promise<Merchant> {
  const actor = optionalActor(input.actor);
  const uuid = checkMerchantUuid(input.uuid);
  return deps.uow.transaction(async (stores) => {
    const merchant = await transitionMerchant(stores.merchants, uuid, input.transition, deps.now());
    await recordChange(stores, deps, actor, { action: `merchant.${input.transition}`, targetType: "merchant", targetUuid: uuid });
    return merchant;
  });
}

/**
 * Lists merchants newest first with exact filters. A malformed uuid filter is
 * INVALID_ARGUMENT (it is a query parameter, not a path).
 */
export async function listMerchants(store: MerchantStore, filter: MerchantFilter): Promise<{ merchants: Merchant[]; total: number }> {
  const page = checkPage(filter.limit, filter.offset);
  if (filter.uuid !== undefined) checkUuid("uuid", filter.uuid);
  if (filter.displayName !== undefined) checkStorable("display_name", filter.displayName);
  return store.list({ ...filter, ...page });
}

/** Locks the merchant for a dependent change; MERCHANT_NOT_FOUND when there is none. */
export async function requireMerchant(stores: MerchantsStores, uuid: string): Promise<Merchant> {
  const merchant = await stores.merchants.lockForChange(uuid);
  if (!merchant) throw new DomainError(MerchantsReason.MerchantNotFound, "merchant not found");
  return merchant;
}

/**
 * Locks the merchant for a configuration change. A closed merchant stays
 * readable but its configuration is frozen: MERCHANT_CLOSED (refuseClosed).
 */
export async function requireOpenMerchant(stores: MerchantsStores, uuid: string): Promise<Merchant> {
  return refuseClosed(await requireMerchant(stores, uuid));
}
