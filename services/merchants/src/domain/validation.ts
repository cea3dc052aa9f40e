import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { isCountryCode } from "@payin/ids/countries";
import { MerchantsReason } from "./reasons.js";

/** Effect of a rule or a policy version. */
export type Effect = "allow" | "deny";
export const EFFECTS: readonly Effect[] = ["allow", "deny"];

/** Largest page a list operation returns. */
export const MAX_PAGE_SIZE = 100;

const CAPABILITY = /^[a-z][a-z0-9_.]{0,63}$/;

/** Throws INVALID_ARGUMENT with a message safe to show a client. */
export function invalid(message: string): never {
  throw new DomainError(MerchantsReason.InvalidArgument, message);
}

/** A uuid argument; INVALID_ARGUMENT when malformed. */
export function checkUuid(field: string, value: string): string {
  if (!isUuid(value)) invalid(`${field} must be a uuid`);
  return value;
}

/**
 * A uuid naming a merchant in the path of an operation. A malformed one cannot
 * name any merchant, so it answers MERCHANT_NOT_FOUND like an unknown one.
 */
export function checkMerchantUuid(value: string): string {
  if (!isUuid(value)) throw new DomainError(MerchantsReason.MerchantNotFound, "merchant not found");
  return value;
}

/** A capability identifier such as `crypto.payin`. */
export function checkCapability(value: string): string {
  if (!CAPABILITY.test(value)) {
    invalid("capability must be 1 to 64 characters of a-z, 0-9, '_' and '.', starting with a letter");
  }
  return value;
}

/** A jurisdiction: an assigned ISO 3166-1 alpha-2 code in upper case. */
export function checkJurisdiction(value: string): string {
  if (!/^[A-Z]{2}$/.test(value)) invalid("jurisdiction must be exactly 2 upper-case letters (ISO 3166-1 alpha-2)");
  if (!isCountryCode(value)) invalid("jurisdiction must be an assigned ISO 3166-1 alpha-2 country code");
  return value;
}

/** `allow` or `deny`. */
export function checkEffect(value: string): Effect {
  if (!(EFFECTS as readonly string[]).includes(value)) invalid("effect must be one of: allow, deny");
  return value as Effect;
}

/** A page of a list: limit 1..100 (no default here; the gateway applies it), offset >= 0. */
export function checkPage(limit: number, offset: number): { limit: number; offset: number } {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) invalid(`limit must be 1 to ${MAX_PAGE_SIZE}`);
  if (!Number.isInteger(offset) || offset < 0) invalid("offset must be 0 or more");
  return { limit, offset };
}
