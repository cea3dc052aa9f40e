import { dnsServers } from "./notifier/config.js";
import { actorAssertionVerifyingKey, aes256Key, int, oneOf, port, serviceBase, serviceCredential, serviceUrl } from "@payin/config";

export const configSchema = {
  ...serviceBase,
  NOTIFICATIONS_PORT: port(50056),
  /** This service's own credential: its audit outbox relay calls merchants' AppendAuditEvents. */
  SERVICE_CREDENTIAL: serviceCredential("notifications"),
  /** Where the audit log is kept (the merchants service). */
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
  /** Identity's public key for actor assertions (base64url, 32 bytes): every change's person is verified with it. */
  ACTOR_ASSERTION_PUBLIC_KEY: actorAssertionVerifyingKey(),
  /**
   * The AES-256 key webhook endpoints' signing secrets are sealed with at rest
   * (base64url, no padding, 32 bytes); the notifier holds it too. npm start
   * derives it from the master secret.
   */
  WEBHOOK_SECRET_KEY: aes256Key(),
  /**
   * Local development only: webhook URLs may use http and loopback addresses
   * (private and link-local ones stay refused). npm start turns it on; a
   * deployment never does.
   */
  WEBHOOK_ALLOW_INSECURE_URLS: oneOf(["true", "false"] as const, "false"),
  /** Unset: the system's resolver. Set: only these servers are asked, as the notifier asks them at delivery. */
  WEBHOOK_DNS_SERVERS: dnsServers,
  /** How long events are kept and listed, in days (at least 30). */
  EVENT_RETENTION_DAYS: int(30, 30, 3650),
  /** How many webhook endpoints one merchant may have. */
  WEBHOOK_ENDPOINTS_PER_MERCHANT: int(16, 1, 100),
};
