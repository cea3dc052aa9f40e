import { actorAssertionSigningKey, ConfigError, int, oneOf, port, serviceBase, serviceCredential, serviceUrl, type Reader } from "@payin/config";
import { parseEncryptionKey } from "@payin/sealing";

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

/**
 * Login is deliberately slow (argon2id, about 20–40 ms of one core each), so the
 * identity process is kept from starving the latency-sensitive work sharing its
 * machine (the gateway, payins, PostgreSQL):
 *
 * - ARGON2_CONCURRENCY (default 1, 1–64): how many argon2 operations (hash,
 *   verify, the dummy verify of an unknown email) may run at once in the process;
 *   the others queue. Password hashing thus never occupies more than that many
 *   cores; a burst of logins answers later instead of slowing everything else.
 * - PROCESS_NICE (default 19, 0–19): the scheduling priority (nice value) the
 *   process lowers all its threads to at boot, libuv's pool (where argon2 runs)
 *   and the event loop alike: under CPU contention a sign-in — its hash, and its
 *   requests, SQL and session writes — yields to requests that must be fast. The
 *   merchant API's machine tokens do not wait for identity (the gateway's cache
 *   re-verifies them in the background); session checks of people's requests do,
 *   and are slower on a saturated machine. It only ever lowers priority (0, or a
 *   value at or below the current one, changes nothing); when the system refuses
 *   the change it is logged and the service runs on.
 * - WORKER_SCHED_IDLE (default true; true or false): on Linux, those worker
 *   threads also take the SCHED_IDLE policy, so a request's thread waking on a
 *   core where a hash runs gets the core at once instead of after the hash's time
 *   slice (see priority.ts). Needs util-linux's `chrt`; without it, or when
 *   refused, a warning is logged and the nice value alone applies.
 */
export const configSchema = {
  ...serviceBase,
  IDENTITY_PORT: port(50051),
  /** Identity's own credential: its audit outbox relay calls merchants' AppendAuditEvents. */
  SERVICE_CREDENTIAL: serviceCredential("identity"),
  /** Where the audit log is kept (the merchants service). */
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
  TOTP_ENCRYPTION_KEY: encryptionKey(),
  /** Identity's Ed25519 seed for actor assertions (base64url, 32 bytes): identity alone holds it. */
  ACTOR_ASSERTION_SIGNING_KEY: actorAssertionSigningKey(),
  ARGON2_CONCURRENCY: int(1, 1, 64),
  PROCESS_NICE: int(19, 0, 19),
  WORKER_SCHED_IDLE: oneOf(["true", "false"] as const, "true"),
  /**
   * Sign-in throttling counts an IPv6 client per network of this prefix length
   * (one /64 is one subscriber's LAN); IPv4, and IPv4-mapped IPv6, per IPv4 address.
   */
  RATE_LIMIT_IPV6_PREFIX: int(64, 32, 128),
};
