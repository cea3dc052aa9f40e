import { int, list, oneOf, optionalUrl, port, serviceCredential, serviceUrl, str } from "@payin/config";
import { trustedProxyProblem } from "@payin/http";

export const configSchema = {
  /** The gateway's own credential for its calls to the services (caller `checkout`). */
  SERVICE_CREDENTIAL: serviceCredential("checkout"),
  HOST: str("127.0.0.1"),
  CHECKOUT_PORT: port(8081),
  /**
   * The checkout's public base address ({checkout_url}): links are built on it.
   * Default: http://<HOST>:<CHECKOUT_PORT> (loopback when HOST is a wildcard).
   */
  CHECKOUT_PUBLIC_URL: optionalUrl(),
  IDENTITY_URL: serviceUrl("IDENTITY_PORT"),
  PAYINS_URL: serviceUrl("PAYINS_PORT"),
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
  ALLOCATION_URL: serviceUrl("ALLOCATION_PORT"),
  NOTIFICATIONS_URL: serviceUrl("NOTIFICATIONS_PORT"),
  /** Rate-limit counters go to this Redis when set (shared by every replica); to memory otherwise. */
  REDIS_URL: optionalUrl(["redis:", "rediss:"]),
  /** Public routes (page, start, status): requests per window, per action, for one client address. */
  RATE_LIMIT_PUBLIC_PER_IP: int(60, 1, 1_000_000),
  /** Public routes: requests per window, per action, for one checkout token. */
  RATE_LIMIT_PUBLIC_PER_TOKEN: int(60, 1, 1_000_000),
  /** Checkout creations per window for one signed-in identity. */
  RATE_LIMIT_CHECKOUT_CREATE: int(20, 1, 1_000_000),
  /** Prefix of the rate-limit counters' keys in Redis: replicas that share limits share it. */
  RATE_LIMIT_KEY_PREFIX: str("checkout:rl"),
  /** The window of every rate limit, in seconds. */
  RATE_LIMIT_WINDOW_S: int(60, 1, 3_600),
  /**
   * IPv6 clients are counted per network of this prefix length (one /64 is one
   * subscriber's LAN); IPv4, and IPv4-mapped IPv6, per IPv4 address.
   */
  RATE_LIMIT_IPV6_PREFIX: int(64, 32, 128),
  /**
   * Proxies (IPs or CIDR ranges, comma-separated) whose X-Forwarded-For is
   * believed for the client address; empty: the TCP peer is the client.
   */
  TRUSTED_PROXIES: list(trustedProxyProblem),
  LOG_LEVEL: oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const, "info"),
};
