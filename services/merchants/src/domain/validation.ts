import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { isCountryCode } from "@payin/ids/countries";
import { displayTextProblem } from "@payin/http/text";
import { isCapability, UNKNOWN_CAPABILITY_MESSAGE, type Capability } from "@payin/permissions";
import { MerchantsReason } from "./reasons.js";

/** Effect of a rule or a policy version. */
export type Effect = "allow" | "deny";
export const EFFECTS: readonly Effect[] = ["allow", "deny"];

/** Largest page a list operation returns. */
export const MAX_PAGE_SIZE = 100;

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

/**
 * A capability the platform knows (`crypto.payin`): the list is closed, so a
 * rule or binding naming another is refused here rather than stored and never
 * matched (a pay-in would then fail later as PAYIN_NOT_ALLOWED or not ready).
 */
export function checkCapability(value: string): Capability {
  if (!isCapability(value)) invalid(UNKNOWN_CAPABILITY_MESSAGE);
  return value;
}

/** A name shown to people (merchant and provider names): no bidirectional control or zero-width characters. */
export function checkDisplayText(field: string, value: string): string {
  const problem = displayTextProblem(value);
  if (problem) invalid(`${field} ${problem}`);
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

/** A page of a list. */
export interface Page {
  limit: number;
  offset: number;
}

/** A page of a list: limit 1..100 (no default here; the gateway applies it), offset >= 0. */
export function checkPage(limit: number, offset: number): Page {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) invalid(`limit must be 1 to ${MAX_PAGE_SIZE}`);
  if (!Number.isInteger(offset) || offset < 0) invalid("offset must be 0 or more");
  return { limit, offset };
}

/**
 * The page of a list whose limit is optional (rules, providers): none when no
 * limit is given (the whole list, as callers from before paging expect), else
 * checked as checkPage does.
 */
export function optionalPage(limit: number | undefined, offset: number): Page | undefined {
  return limit === undefined ? undefined : checkPage(limit, offset);
}
