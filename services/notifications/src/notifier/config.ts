import { ConfigError, int, list, oneOf, port, secret, serviceBase, type Reader } from "@payin/config";
import { parseEncryptionKey } from "@payin/sealing";

/** The receivers' time to answer: 2xx within 15 s is a success. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;

/** WEBHOOK_SECRET_KEY: base64url (no padding) of 32 bytes; the key the endpoints' secrets are sealed under. */
export function sealingKey(): Reader<Buffer> {
  return (env, name) => {
    const key = parseEncryptionKey(secret(43)(env, name));
    if (!key) throw new ConfigError(name, "must be base64url (no padding) of 32 bytes");
    return key;
  };
}

/** "host" or "host:port" items: the DNS servers receivers' names are resolved with. */
/** WEBHOOK_DNS_SERVERS: the DNS servers receivers' names are resolved with (the service's check at create, the notifier's at delivery). */
export const dnsServers = list((item) => (/^[0-9a-fA-F.:[\]]+$/.test(item) ? null : "is not an IP address (with an optional port)"));

/** The notifier's settings (notifier-main.ts). */
export const notifierConfigSchema = {
  DATABASE_URL: serviceBase.DATABASE_URL,
  HOST: serviceBase.HOST,
  LOG_LEVEL: serviceBase.LOG_LEVEL,
  MIGRATE_ON_BOOT: serviceBase.MIGRATE_ON_BOOT,
  /** Its health endpoint (GET /health): how far behind delivery is. */
  NOTIFIER_PORT: port(50057),
  WEBHOOK_SECRET_KEY: sealingKey(),
  /** Local development only: http and loopback receivers (private and link-local addresses stay refused). */
  WEBHOOK_ALLOW_INSECURE_URLS: oneOf(["true", "false"] as const, "false"),
  /** Unset: the system's resolver. Set: only these servers are asked (A and AAAA). */
  WEBHOOK_DNS_SERVERS: dnsServers,
  /** Deliveries in flight at once in this process. */
  NOTIFIER_CONCURRENCY: int(64, 1, 512),
  /**
   * Deliveries in flight at once to one endpoint, in this process: a quarter of
   * NOTIFIER_CONCURRENCY, so receivers that hang hold at most a quarter of the
   * notifier each, while a healthy one still gets a thousand deliveries a
   * second (at 4, one endpoint got under 500: docs/decisions.md, "Webhook
   * delivery: the queue, measured").
   */
  NOTIFIER_ENDPOINT_CONCURRENCY: int(16, 1, 256),
  /** How long a receiver has to answer, in ms (the contract is 15 s; tests shorten it). */
  WEBHOOK_TIMEOUT_MS: int(DEFAULT_WEBHOOK_TIMEOUT_MS, 100, 60_000),
  /** How often the queue is polled for deliveries due later (new ones arrive at once by notification). */
  NOTIFIER_POLL_INTERVAL_MS: int(500, 50, 60_000),
  /**
   * graphile-worker's local queue: jobs fetched (and locked) per query, handed to
   * the workers as they free up; 0 or 1 fetches one job per worker and query.
   */
  NOTIFIER_LOCAL_QUEUE_SIZE: int(32, 0, 10_000),
  /**
   * graphile-worker's batching of job completions: the window in ms (0 completes
   * each job at once). A job completed but not yet deleted when the process dies
   * runs again and finds its delivery done.
   */
  NOTIFIER_COMPLETE_BATCH_MS: int(10, 0, 10_000),
  /** How often the notifier beats (and sweeps dead notifiers' jobs). */
  NOTIFIER_HEARTBEAT_MS: int(3_000, 100, 60_000),
  /** A notifier silent for this long is taken for dead and its jobs are handed back. */
  NOTIFIER_STALE_AFTER_MS: int(15_000, 1_000, 3_600_000),
};
