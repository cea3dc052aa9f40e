import { createHash, randomBytes } from "node:crypto";
import { MACHINE_TOKEN_PREFIX } from "./machine-token.js";

/**
 * Session tokens and MFA challenge tokens: 32 random bytes, base64url
 * without padding (43 characters). Only SHA-256 of the token text is stored.
 */
const OPAQUE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** SHA-256 of a token's text. */
function digest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/**
 * A fresh token and the hash to store. Never one that starts like a machine token
 * (about one in 17 million would): the gateway takes any bearer with that prefix
 * for a machine credential, so such a session could never be used.
 */
export function newOpaqueToken(): { token: string; hash: Buffer } {
  let token: string;
  do token = randomBytes(32).toString("base64url");
  while (token.startsWith(MACHINE_TOKEN_PREFIX));
  return { token, hash: digest(token) };
}

/** The stored hash of a well-formed token; null when the text cannot be one of ours. */
export function hashOpaqueToken(token: string): Buffer | null {
  return OPAQUE_TOKEN.test(token) ? digest(token) : null;
}

/** A random value of `bytes` bytes as base64url (CSRF tokens, generated passwords). */
export function randomBase64url(bytes: number): string {
  return randomBytes(bytes).toString("base64url");
}
