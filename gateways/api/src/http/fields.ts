import type Router from "@koa/router";
import { isEmailAddress } from "@payin/ids";
import { badRequest } from "./api-error.js";

/** A JSON request body. */
export type Body = Record<string, unknown>;

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a UUID in any letter case. */
export function isUuid(value: string | undefined): value is string {
  return value !== undefined && UUID_PATTERN.test(value);
}

/** Length in Unicode code points: the "characters" of the contract's limits (docs/api.md), as the services count them. */
export function charLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What makes `value` unfit to be stored as text, or null: PostgreSQL text cannot
 * hold U+0000, and a lone surrogate (JSON's "\ud800") is no character at all —
 * encoded, it would silently become U+FFFD.
 */
export function textProblem(value: string): string | null {
  if (value.includes("\u0000")) return "must not contain the character U+0000";
  if (LONE_SURROGATE.test(value)) return "must be valid Unicode (it holds a lone surrogate)";
  return null;
}

/** 400 VALIDATION_ERROR unless every field of `body` is in `allowed` (extra fields are rejected). */
export function onlyFields(body: Body, allowed: readonly string[]): void {
  for (const field of Object.keys(body)) {
    if (!allowed.includes(field)) {
      throw badRequest(
        "VALIDATION_ERROR",
        allowed.length ? `unknown field "${field}"; allowed: ${allowed.join(", ")}` : `unknown field "${field}"; this operation takes no fields`,
      );
    }
  }
}

export interface StringRule {
  min?: number;
  max?: number;
  /** Refuse values that are only white space. */
  notBlank?: boolean;
  /** Must match; `hint` describes the expected form in the message. */
  pattern?: RegExp;
  hint?: string;
}

export const UUID_RULE: StringRule = { pattern: UUID_PATTERN, hint: "a uuid" };

function checkString(name: string, value: string, rule: StringRule): string {
  const length = charLength(value);
  const { min, max } = rule;
  if ((min !== undefined && length < min) || (max !== undefined && length > max)) {
    throw badRequest("VALIDATION_ERROR", max !== undefined ? `${name} must be ${min ?? 0} to ${max} characters` : `${name} must be at least ${min} characters`);
  }
  if (rule.notBlank && value.trim() === "") throw badRequest("VALIDATION_ERROR", `${name} must not be blank`);
  if (rule.pattern && !rule.pattern.test(value)) throw badRequest("VALIDATION_ERROR", `${name} must be ${rule.hint ?? "well-formed"}`);
  return value;
}

/** A required string field. */
export function requiredString(body: Body, name: string, rule: StringRule = {}): string {
  const value = body[name];
  if (value === undefined || value === null) throw badRequest("VALIDATION_ERROR", `${name} is required`);
  if (typeof value !== "string") throw badRequest("VALIDATION_ERROR", `${name} must be a string`);
  return checkString(name, value, rule);
}

/** An optional string field; absent and null both mean "not given". */
export function optionalString(body: Body, name: string, rule: StringRule = {}): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw badRequest("VALIDATION_ERROR", `${name} must be a string`);
  return checkString(name, value, rule);
}

/** A required array of strings. */
export function requiredStringArray(body: Body, name: string, maxItems = 16): string[] {
  const value = body[name];
  if (value === undefined || value === null) throw badRequest("VALIDATION_ERROR", `${name} is required`);
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw badRequest("VALIDATION_ERROR", `${name} must be an array of strings`);
  }
  if (value.length > maxItems) throw badRequest("VALIDATION_ERROR", `${name} must have at most ${maxItems} items`);
  return value as string[];
}

/** A required string field that must be one of `values`. */
export function enumField<T extends string>(body: Body, field: string, values: readonly T[]): T {
  const value = body[field];
  if (value === undefined || value === null) throw badRequest("VALIDATION_ERROR", `${field} is required`);
  if (typeof value !== "string" || !(values as readonly string[]).includes(value)) {
    throw badRequest("VALIDATION_ERROR", `${field} must be one of: ${values.join(", ")}`);
  }
  return value as T;
}

/** A required email field. */
export function emailField(body: Body, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) throw badRequest("VALIDATION_ERROR", `${field} is required`);
  // The shape identity accepts, checked here so a malformed one is the gateway's 400 VALIDATION_ERROR.
  if (typeof value !== "string" || !isEmailAddress(value)) {
    throw badRequest("VALIDATION_ERROR", `${field} must be an email address`);
  }
  return value;
}

/**
 * Makes the router hand its handlers these path parameters in lower case: a
 * UUID is the same whatever the letter case (RFC 9562), and services compare
 * the canonical lower-case form.
 */
export function lowerCaseUuidParams(router: Router, names: readonly string[]): void {
  for (const name of names) {
    router.param(name, (value, ctx, next) => {
      ctx.params[name] = value.toLowerCase();
      return next();
    });
  }
}
