/**
 * Emails are compared case-insensitively by storing them lower-cased. The accepted
 * shape is the WHATWG `type=email` one with a dotted domain, at most 254 characters
 * and a local part of at most 64.
 */
const EMAIL =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
export const EMAIL_MAX_LENGTH = 254;

/** The stored form of an email (lower-cased), or null when it is not an email address. */
export function normalizeEmail(input: string): string | null {
  if (input.length > EMAIL_MAX_LENGTH || !EMAIL.test(input)) return null;
  return input.toLowerCase();
}
