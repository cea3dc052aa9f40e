import type Router from "@koa/router";
import { isEmailAddress, UUID_ANY_CASE_PATTERN } from "@payin/ids";
import { validationError } from "./errors.js";
import { charLength } from "./text.js";

/** A JSON request body. */
export type Body = Record<string, unknown>;

/** 400 VALIDATION_ERROR unless every field of `body` is in `allowed` (extra fields are rejected). */
export function onlyFields(body: Body, allowed: readonly string[]): void {
  for (const field of Object.keys(body)) {
    if (!allowed.includes(field)) {
      throw validationError(
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

export const UUID_RULE: StringRule = { pattern: UUID_ANY_CASE_PATTERN, hint: "a uuid" };

function checkString(name: string, value: string, rule: StringRule): string {
  const length = charLength(value);
  const { min, max } = rule;
  if ((min !== undefined && length < min) || (max !== undefined && length > max)) {
    throw validationError(max !== undefined ? `${name} must be ${min ?? 0} to ${max} characters` : `${name} must be at least ${min} characters`);
  }
  if (rule.notBlank && value.trim() === "") throw validationError(`${name} must not be blank`);
  if (rule.pattern && !rule.pattern.test(value)) throw validationError(`${name} must be ${rule.hint ?? "well-formed"}`);
  return value;
}

/** A required string field. */
export function requiredString(body: Body, name: string, rule: StringRule = {}): string {
  const value = body[name];
  if (value === undefined || value === null) throw validationError(`${name} is required`);
  if (typeof value !== "string") throw validationError(`${name} must be a string`);
  return checkString(name, value, rule);
}

/** An optional string field; absent and null both mean "not given". */
export function optionalString(body: Body, name: string, rule: StringRule = {}): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw validationError(`${name} must be a string`);
  return checkString(name, value, rule);
}

/** A required array of strings. */
export function requiredStringArray(body: Body, name: string, maxItems = 16): string[] {
  const value = body[name];
  if (value === undefined || value === null) throw validationError(`${name} is required`);
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    throw validationError(`${name} must be an array of strings`);
  }
  if (value.length > maxItems) throw validationError(`${name} must have at most ${maxItems} items`);
  return value as string[];
}

/** A required string field that must be one of `values`. */
export function enumField<T extends string>(body: Body, field: string, values: readonly T[]): T {
  const value = body[field];
  if (value === undefined || value === null) throw validationError(`${field} is required`);
  if (typeof value !== "string" || !(values as readonly string[]).includes(value)) {
    throw validationError(`${field} must be one of: ${values.join(", ")}`);
  }
  return value as T;
}

/** A required email field. */
export function emailField(body: Body, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) throw validationError(`${field} is required`);
  // The shape identity accepts, checked here so a malformed one is the gateway's 400 VALIDATION_ERROR.
  if (typeof value !== "string" || !isEmailAddress(value)) {
    throw validationError(`${field} must be an email address`);
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
