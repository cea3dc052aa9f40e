import { actorAssertionVerifyingKey, int, port, serviceBase, serviceCredential, serviceUrl, type Reader } from "@payin/config";
import { railsFromEnv, type RailsConfig } from "@payin/rails";
import { DEFAULT_OBSERVER_STALL_MS } from "./domain/readiness.js";

export const configSchema = {
  ...serviceBase,
  /** This service's own credential for its calls to merchants. */
  SERVICE_CREDENTIAL: serviceCredential("allocation"),
  ALLOCATION_PORT: port(50054),
  /** Identity's public key for actor assertions: the person setting a wallet is checked with it. */
  ACTOR_ASSERTION_PUBLIC_KEY: actorAssertionVerifyingKey(),
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
  /**
   * Readiness: a rail whose chain observer has not advanced for longer than this
   * is provider_not_ready (until it catches up). 1 s to 1 h.
   */
  OBSERVER_STALL_MS: int(DEFAULT_OBSERVER_STALL_MS, 1_000, 3_600_000),
};

/**
 * The chain observer's settings (observer-main.ts); the rails come from
 * @payin/rails (BEP20_RPC_URL, …).
 */
export const observerConfigSchema = {
  DATABASE_URL: serviceBase.DATABASE_URL,
  HOST: serviceBase.HOST,
  LOG_LEVEL: serviceBase.LOG_LEVEL,
  MIGRATE_ON_BOOT: serviceBase.MIGRATE_ON_BOOT,
  /** The observer's own credential for its calls to payins. */
  SERVICE_CREDENTIAL: serviceCredential("observer"),
  /** Its health endpoint (GET /health): rails, leases and progress. */
  OBSERVER_PORT: port(50055),
  PAYINS_URL: serviceUrl("PAYINS_PORT"),
  /** The rails, from their own variables (BEP20_RPC_URL, …; @payin/rails). Not a variable of its own. */
  rails: ((env) => railsFromEnv(env)) as Reader<RailsConfig>,
};
