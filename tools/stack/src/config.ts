import path from "node:path";
import { ConfigError, DEFAULT_PORTS, int, optionalSecret, optionalUrl, port, str, type Reader } from "@payin/config";
import { isEmailAddress } from "@payin/ids";
import { REPO_ROOT } from "@payin/launcher";

/** An email address identity accepts (@payin/ids' isEmailAddress), or `fallback` when unset. */
export function email(fallback: string): Reader<string> {
  return (env, name) => {
    const text = env[name] || fallback;
    if (!isEmailAddress(text)) throw new ConfigError(name, `must be an email address, got "${text}"`);
    return text;
  };
}

/** An optional AES-256 key as identity takes it: base64url, no padding, of exactly 32 bytes. */
export function optionalKey(): Reader<string | undefined> {
  return (env, name) => {
    const text = env[name];
    if (!text) return undefined;
    if (!/^[A-Za-z0-9_-]{43}$/.test(text) || Buffer.from(text, "base64url").toString("base64url") !== text) {
      throw new ConfigError(name, "must be base64url (no padding) of exactly 32 bytes");
    }
    return text;
  };
}

/** A port the platform's processes are reached on (0, any port, would not be known to the others). */
const fixedPort = (fallback: number) => int(fallback, 1, 65535);

/**
 * What `npm start` reads from its environment, once, before anything starts (a
 * bad value stops it with one line naming the variable, see `loadConfig`). The
 * services check their own settings (LOG_LEVEL, DB_POOL_MAX, …) when they boot.
 */
export const stackConfigSchema = {
  /** An external PostgreSQL instead of the embedded one. */
  DATABASE_URL: optionalUrl(["postgres:", "postgresql:"]),
  /** Port of the embedded PostgreSQL; 0 (the default) picks a free one. */
  PG_PORT: port(0),
  PAYIN_DATA_DIR: str(path.join(REPO_ROOT, ".data")),
  BOOTSTRAP_ADMIN_EMAIL: email("admin@example.com"),
  HOST: str("127.0.0.1"),
  /** When unset, the token kept in the data directory (created on first start). */
  SERVICE_TOKEN: optionalSecret(32),
  /** When unset, the key kept in the data directory (created on first start). */
  TOTP_ENCRYPTION_KEY: optionalKey(),
  API_PORT: fixedPort(DEFAULT_PORTS.API_PORT),
  CHECKOUT_PORT: fixedPort(DEFAULT_PORTS.CHECKOUT_PORT),
  IDENTITY_PORT: fixedPort(DEFAULT_PORTS.IDENTITY_PORT),
  MERCHANTS_PORT: fixedPort(DEFAULT_PORTS.MERCHANTS_PORT),
  PAYINS_PORT: fixedPort(DEFAULT_PORTS.PAYINS_PORT),
  ALLOCATION_PORT: fixedPort(DEFAULT_PORTS.ALLOCATION_PORT),
  NOTIFICATIONS_PORT: fixedPort(DEFAULT_PORTS.NOTIFICATIONS_PORT),
  OBSERVER_PORT: fixedPort(DEFAULT_PORTS.OBSERVER_PORT),
  NOTIFIER_PORT: fixedPort(DEFAULT_PORTS.NOTIFIER_PORT),
};
