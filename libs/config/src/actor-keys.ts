/**
 * The keys of actor assertions (@payin/rpc, actor-assertion.ts): identity signs
 * with an Ed25519 key made from a 32-byte seed (`ACTOR_ASSERTION_SIGNING_KEY`);
 * every service that records who acted verifies with its public key
 * (`ACTOR_ASSERTION_PUBLIC_KEY`), which cannot sign. Both are base64url (no
 * padding) of 32 bytes. Locally the launcher derives the seed from the master
 * secret, like the service credentials; in production it comes from a secret
 * store, to identity only.
 */
import { createHmac, createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { ConfigError, type Reader } from "./index.js";

// DER headers that wrap a raw 32-byte Ed25519 seed (PKCS #8) and public key (SPKI).
const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");

/** Identity's signing key from its 32-byte seed. */
export function assertionSigningKey(seed: Buffer): KeyObject {
  if (seed.length !== 32) throw new Error("an actor assertion seed is 32 bytes");
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: "der", type: "pkcs8" });
}

/** The public key services verify with, from its 32 raw bytes. */
export function assertionVerifyingKey(raw: Buffer): KeyObject {
  if (raw.length !== 32) throw new Error("an actor assertion public key is 32 bytes");
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: "der", type: "spki" });
}

/** The 32 raw bytes of the public key that verifies what `seed` signs. */
export function assertionPublicKeyOf(seed: Buffer): Buffer {
  const der = createPublicKey(assertionSigningKey(seed)).export({ format: "der", type: "spki" });
  return Buffer.from(der.subarray(SPKI_ED25519.length));
}

/** The local stack's assertion seed, derived from the master secret (never the same as a service credential). */
export function deriveAssertionSeed(master: string): Buffer {
  return createHmac("sha256", master).update("payin actor assertion seed").digest();
}

/** The two variables for `master`: the signing seed (identity's alone) and the public key (every service's). */
export function assertionKeysFor(master: string): { ACTOR_ASSERTION_SIGNING_KEY: string; ACTOR_ASSERTION_PUBLIC_KEY: string } {
  const seed = deriveAssertionSeed(master);
  return { ACTOR_ASSERTION_SIGNING_KEY: seed.toString("base64url"), ACTOR_ASSERTION_PUBLIC_KEY: assertionPublicKeyOf(seed).toString("base64url") };
}

function key32(env: Record<string, string | undefined>, name: string): Buffer {
  const text = env[name];
  if (text === undefined || text === "") throw new ConfigError(name, "is required but not set");
  const bytes = /^[A-Za-z0-9_-]{43}$/.test(text) ? Buffer.from(text, "base64url") : null;
  if (!bytes || bytes.length !== 32) throw new ConfigError(name, "must be base64url (no padding) of exactly 32 bytes");
  return bytes;
}

/** `ACTOR_ASSERTION_SIGNING_KEY`: identity's signing key; the value never appears in errors. */
export function actorAssertionSigningKey(): Reader<KeyObject> {
  return (env, name) => assertionSigningKey(key32(env, name));
}

/** `ACTOR_ASSERTION_PUBLIC_KEY`: the key a service verifies identity's assertions with. */
export function actorAssertionVerifyingKey(): Reader<KeyObject> {
  return (env, name) => assertionVerifyingKey(key32(env, name));
}
