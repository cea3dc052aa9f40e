import { badRequest } from "./api-error.js";

/**
 * Email shape the identity service accepts (WHATWG `type=email` with a dotted
 * domain, local part at most 64, whole at most 254 characters), checked here so a
 * malformed one is the gateway's 400 VALIDATION_ERROR.
 */
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const EMAIL_MAX_LENGTH = 254;

/** 400 VALIDATION_ERROR unless every field of `body` is in `allowed` (extra fields are rejected). */
export function onlyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const field of Object.keys(body)) {
    if (!allowed.includes(field)) {
      throw badRequest("VALIDATION_ERROR", `unknown field "${field}"; allowed: ${allowed.join(", ")}`);
    }
  }
}

/** A required string field whose length in characters (code points) lies in [min, max]. */
export function stringField(body: Record<string, unknown>, field: string, min: number, max: number): string {
  const value = body[field];
  if (value === undefined || value === null) throw badRequest("VALIDATION_ERROR", `${field} is required`);
  if (typeof value !== "string") throw badRequest("VALIDATION_ERROR", `${field} must be a string`);
  const length = [...value].length;
  if (length < min || length > max) {
    throw badRequest("VALIDATION_ERROR", min === max ? `${field} must have ${min} characters` : `${field} must have ${min} to ${max} characters`);
  }
  return value;
}

/** A required string field that must be one of `values`. */
export function enumField<T extends string>(body: Record<string, unknown>, field: string, values: readonly T[]): T {
  const value = body[field];
  if (value === undefined || value === null) throw badRequest("VALIDATION_ERROR", `${field} is required`);
  if (typeof value !== "string" || !(values as readonly string[]).includes(value)) {
    throw badRequest("VALIDATION_ERROR", `${field} must be one of: ${values.join(", ")}`);
  }
  return value as T;
}

/** A required email field. */
export function emailField(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (value === undefined || value === null) throw badRequest("VALIDATION_ERROR", `${field} is required`);
  if (typeof value !== "string" || value.length > EMAIL_MAX_LENGTH || !EMAIL.test(value)) {
    throw badRequest("VALIDATION_ERROR", `${field} must be an email address`);
  }
  return value;
}
