import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Machine tokens (docs/api.md, "Authentication"): `mpk_` + key id (16 random bytes, 32 lower-case hex)
 * + secret (32 random bytes, 43 base64url characters without padding). Only the key
 * id and SHA-256 of the secret's bytes are kept; the plaintext exists once, in the
 * response that issues it.
 */
export const MACHINE_TOKEN_PREFIX = "mpk_";

const KEY_ID_BYTES = 16;
const SECRET_BYTES = 32;
export const MACHINE_TOKEN_LENGTH = MACHINE_TOKEN_PREFIX.length + 32 + 43;

/**
 * The whole token, anchored. The secret's last character carries 4 data bits and 2
 * zero bits, so only the 16 characters whose low two bits are zero may end it: each
 * secret has exactly one accepted spelling.
 */
const MACHINE_TOKEN = /^mpk_([0-9a-f]{32})([A-Za-z0-9_-]{42}[AEIMQUYcgkosw048])$/;

/** A token split into its parts; `secret` is the decoded 32 bytes. */
export interface ParsedMachineToken {
  keyId: string;
  secret: Buffer;
}

/** A freshly minted token and what may be stored of it. */
export interface IssuedMachineToken {
  /** Plaintext token: hand it to the caller once, never store or log it. */
  token: string;
  keyId: string;
  secretHash: Buffer;
}

/** Compared against when there is no stored hash, so a miss costs what a hit does. */
const DUMMY_HASH = createHash("sha256").update(randomBytes(SECRET_BYTES)).digest();

/** SHA-256 of a secret's bytes: the only form of the secret that is stored. */
export function hashSecret(secret: Buffer): Buffer {
  return createHash("sha256").update(secret).digest();
}

/** Mints a new machine token from the system's CSPRNG. */
export function generateMachineToken(): IssuedMachineToken {
  const keyId = randomBytes(KEY_ID_BYTES).toString("hex");
  const secret = randomBytes(SECRET_BYTES);
  return { token: `${MACHINE_TOKEN_PREFIX}${keyId}${secret.toString("base64url")}`, keyId, secretHash: hashSecret(secret) };
}

/** True when `token` claims to be a machine token; such a token is never a session. */
export function hasMachinePrefix(token: string): boolean {
  return token.startsWith(MACHINE_TOKEN_PREFIX);
}

/** Splits a well-formed machine token; null for anything else, however close. */
export function parseMachineToken(token: string): ParsedMachineToken | null {
  if (token.length !== MACHINE_TOKEN_LENGTH) return null;
  const match = MACHINE_TOKEN.exec(token);
  if (!match) return null;
  return { keyId: match[1]!, secret: Buffer.from(match[2]!, "base64url") };
}

/**
 * Constant-time check of `secret` against a stored hash. With no stored hash (an
 * unknown key id) it compares against a dummy and answers false, doing the same work.
 */
export function secretMatches(secret: Buffer, storedHash: Buffer | null): boolean {
  const presented = hashSecret(secret);
  const usable = storedHash !== null && storedHash.length === presented.length;
  const equal = timingSafeEqual(presented, usable ? storedHash : DUMMY_HASH);
  return usable && equal;
}
