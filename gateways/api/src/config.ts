import { int, list, oneOf, port, serviceCredential, serviceUrl, str } from "@payin/config";
import { trustedProxyProblem } from "@payin/http";

export const configSchema = {
  /** The gateway's own credential for its calls to the services. */
  SERVICE_CREDENTIAL: serviceCredential("api"),
  HOST: str("127.0.0.1"),
  API_PORT: port(8080),
  IDENTITY_URL: serviceUrl("IDENTITY_PORT"),
  PAYINS_URL: serviceUrl("PAYINS_PORT"),
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
  ALLOCATION_URL: serviceUrl("ALLOCATION_PORT"),
  NOTIFICATIONS_URL: serviceUrl("NOTIFICATIONS_PORT"),
  /** How long an authenticated machine token is trusted without asking identity again. */
  AUTH_CACHE_TTL_MS: int(4_000, 0, 5_000),
  /**
   * Proxies (IPs or CIDR ranges, comma-separated) whose X-Forwarded-For is
   * believed for the client address; empty: the TCP peer is the client.
   */
  TRUSTED_PROXIES: list(trustedProxyProblem),
  LOG_LEVEL: oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const, "info"),
};
