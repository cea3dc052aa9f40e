import { isEmailAddress } from "@payin/ids";

/**
 * Emails are compared case-insensitively by storing them lower-cased; the accepted
 * shape is @payin/ids' isEmailAddress.
 */

/** The stored form of an email (lower-cased), or null when it is not an email address. */
export function normalizeEmail(input: string): string | null {
  if (!isEmailAddress(input)) return null;
  return input.toLowerCase();
}
