import { int, port, serviceBase, serviceCredential, serviceUrl } from "@payin/config";

export const configSchema = {
  ...serviceBase,
  /** This service's own credential for its calls to merchants and allocation. */
  SERVICE_CREDENTIAL: serviceCredential("payins"),
  PAYINS_PORT: port(50053),
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
  ALLOCATION_URL: serviceUrl("ALLOCATION_PORT"),
  /**
   * How long a merchant's pay-in context (status, rule, policy, profile, provider connection) is used
   * at most; a change announced by the merchants schema drops it at once. 0 asks
   * the merchants service on every create.
   */
  PAYIN_CONTEXT_CACHE_MS: int(5_000, 0, 60_000),
  /**
   * Seconds from a hosted checkout's start to its pay-in intent's deadline; a
   * session keeps the window it was created with.
   */
  CHECKOUT_PAYMENT_WINDOW_S: int(1_800, 60, 86_400),
};
