import { DomainError } from "@payin/errors";
import { MerchantsReason } from "./reasons.js";

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

/** Storage the merchant rules need. */
export interface MerchantStore {
  insert(merchant: Merchant): Promise<void>;
  find(uuid: string): Promise<Merchant | null>;
  /** Atomically moves the merchant to `to` if its status is in `from`; null if it was not. */
  transition(uuid: string, from: readonly MerchantStatus[], to: MerchantStatus, at: Date): Promise<Merchant | null>;
}

function checkLength(field: string, value: string, min: number, max: number): void {
  const length = [...value].length;
  if (length < min || length > max) {
    throw new DomainError(MerchantsReason.InvalidArgument, `${field} must be ${min} to ${max} characters`);
  }
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

/** Reads a merchant or fails with MERCHANT_NOT_FOUND. */
export async function getMerchant(store: MerchantStore, uuid: string): Promise<Merchant> {
  const merchant = await store.find(uuid);
  if (!merchant) throw new DomainError(MerchantsReason.MerchantNotFound, "merchant not found");
  return merchant;
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
