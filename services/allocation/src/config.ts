import { port, serviceBase, serviceCredential, serviceUrl } from "@payin/config";

export const configSchema = {
  ...serviceBase,
  /** This service's own credential for its calls to merchants. */
  SERVICE_CREDENTIAL: serviceCredential("allocation"),
  ALLOCATION_PORT: port(50054),
  MERCHANTS_URL: serviceUrl("MERCHANTS_PORT"),
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
};
