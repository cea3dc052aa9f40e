import { ConfigError, port, serviceBase, type Reader } from "@payin/config";
import { parseEncryptionKey } from "./domain/secret-box.js";

/**
 * The AES-256 key sealing TOTP secrets at rest: required, base64url (no padding)
 * of exactly 32 bytes. The value never appears in errors.
 */
export function encryptionKey(): Reader<Buffer> {
  return (env, name) => {
    const text = env[name];
    if (text === undefined || text === "") throw new ConfigError(name, "is required but not set");
    const key = parseEncryptionKey(text);
    if (!key) throw new ConfigError(name, "must be base64url (no padding) of exactly 32 bytes");
    return key;
  };
}

export const configSchema = { ...serviceBase, IDENTITY_PORT: port(50051), TOTP_ENCRYPTION_KEY: encryptionKey() };
