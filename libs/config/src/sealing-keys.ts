/**
 * AES-256 keys that seal secrets at rest: the notifications service's
 * WEBHOOK_SECRET_KEY (webhook endpoints' signing secrets). Locally the
 * launcher derives it from the master secret, like the service credentials
 * and the assertion keys; in production it comes from a secret store, to the
 * notifications service and the notifier only.
 */
import { createHmac } from "node:crypto";
import { ConfigError, type Reader } from "./index.js";

/** The local stack's WEBHOOK_SECRET_KEY (base64url, 32 bytes), derived from the master secret (never the same as another derived value). */
export function deriveWebhookSecretKey(master: string): string {
  return createHmac("sha256", master).update("payin webhook secret sealing key").digest("base64url");
}

/** A required AES-256 key: base64url (no padding) of exactly 32 bytes. The value never appears in errors. */
export function aes256Key(): Reader<Buffer> {
  return (env, name) => {
    const text = env[name];
    if (text === undefined || text === "") throw new ConfigError(name, "is required but not set");
    const key = /^[A-Za-z0-9_-]{43}$/.test(text) ? Buffer.from(text, "base64url") : null;
    if (!key || key.length !== 32 || key.toString("base64url") !== text) throw new ConfigError(name, "must be base64url (no padding) of exactly 32 bytes");
    return key;
  };
}
