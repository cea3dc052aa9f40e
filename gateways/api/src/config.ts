import { int, oneOf, port, secret, serviceUrl, str } from "@payin/config";

export const configSchema = {
  SERVICE_TOKEN: secret(32),
  HOST: str("127.0.0.1"),
  API_PORT: port(8080),
  IDENTITY_URL: serviceUrl("IDENTITY_PORT"),
  PAYINS_URL: serviceUrl("PAYINS_PORT"),
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
  ALLOCATION_URL: serviceUrl("ALLOCATION_PORT"),
  /** How long an authenticated machine token is trusted without asking identity again. */
  AUTH_CACHE_TTL_MS: int(4_000, 0, 5_000),
  LOG_LEVEL: oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const, "info"),
};
