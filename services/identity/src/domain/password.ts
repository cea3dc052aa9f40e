import { randomBytes } from "node:crypto";
import { argon2id, hash as argon2Hash, verify as argon2Verify } from "argon2";
import { DomainError } from "@payin/errors";
import { IdentityReason } from "./reasons.js";

/**
 * Passwords are hashed with argon2id at OWASP's minimum (19 MiB, 2 passes, 1 lane;
 * DESIGN §7). Hashing runs on libuv's thread pool through the async API, so a login
 * does not block the event loop.
 */
export const ARGON2_OPTIONS = { type: argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;

/** Characters in the sense of Unicode code points, as JSON Schema's minLength/maxLength count. */
function characters(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** Fails with INVALID_ARGUMENT unless `password` has 12 to 128 characters. */
export function checkPasswordRules(password: string, field = "password"): void {
  const length = characters(password);
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw new DomainError(IdentityReason.InvalidArgument, `${field} must have ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  }
}

/** argon2id hash (PHC string) of a password. */
export async function hashPassword(password: string): Promise<string> {
  return argon2Hash(password, ARGON2_OPTIONS);
}

let dummyHash: Promise<string> | undefined;

/**
 * True when `password` matches `hash`. With no hash (an unknown email) it verifies
 * against a dummy hash of the same cost and answers false, so both cases take the
 * same time.
 */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (hash === null) {
    dummyHash ??= hashPassword(randomBytes(24).toString("base64url"));
    await argon2Verify(await dummyHash, password);
    return false;
  }
  return argon2Verify(hash, password);
}

/** A strong generated password: 18 random bytes as 24 base64url characters. */
export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}
