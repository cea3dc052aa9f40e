import { int, port, serviceBase, serviceCredential, serviceUrl, type Reader } from "@payin/config";
import { payableTermsOf, railsFromEnv } from "@payin/rails";
import type { RailMinimums } from "./domain/pay-in-intent.js";

/**
 * The rails as the observer reads them (the launcher gives every process one
 * environment: BEP20_…, ERC20_…, see @payin/rails): an amount below a rail's
 * dust threshold, or finer than its token's unit, is refused at creation, since
 * it could never be counted. Not a variable of its own.
 */
const railMinimums: Reader<RailMinimums> = (env) => payableTermsOf(railsFromEnv(env));

export const configSchema = {
  ...serviceBase,
  /** This service's own credential for its calls to merchants, allocation and notifications. */
  SERVICE_CREDENTIAL: serviceCredential("payins"),
  PAYINS_PORT: port(50053),
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
  ALLOCATION_URL: serviceUrl("ALLOCATION_PORT"),
  /** The notifications service, which payins' event relay hands the events of its changes to. */
  NOTIFICATIONS_URL: serviceUrl("NOTIFICATIONS_PORT"),
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
  rails: railMinimums,
};
