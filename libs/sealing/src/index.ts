import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM sealing of small secrets at rest: identity's TOTP secrets, the
 * notifications service's webhook signing secrets. A sealed value is
 * `version (1 byte) ‖ IV (12) ‖ tag (16) ‖ ciphertext`. The additional data
 * binds a ciphertext to its row (the identity's or the endpoint's uuid), so it
 * cannot be moved to another.
 */
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const ENCRYPTION_KEY_BYTES = 32;

/**
 * Parses the encryption key from its configured form: base64url (no padding) of
 * exactly 32 bytes. Returns null for anything else; never echoes the value.
 */
export function parseEncryptionKey(text: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return null;
  const key = Buffer.from(text, "base64url");
  return key.length === ENCRYPTION_KEY_BYTES && key.toString("base64url") === text ? key : null;
}

/** Encrypts `plaintext` under `key`, bound to `context`. */
export function seal(key: Buffer, plaintext: Buffer, context: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ciphertext]);
}

/** Decrypts a value made by `seal` with the same key and context; throws when it was tampered with. */
export function open(key: Buffer, sealed: Buffer, context: string): Buffer {
  if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) throw new Error("sealed value has an unknown format");
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv("aes-256-gcm", key, iv);
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
}
