import type { Client } from "@connectrpc/connect";
import type { ConfigOf } from "@payin/config";
import { migrate, openDatabase, type Clock } from "@payin/db";
import { createLogger, type Logger } from "@payin/logging";
import { payinsV1 } from "@payin/proto";
import { createServiceClient, type StartService } from "@payin/rpc";
import type { observerConfigSchema } from "./config.js";
import { startHealthServer } from "./observer/health-server.js";
import { Observer } from "./observer/observer.js";
import { ObservationRepository } from "./store/observation-repository.js";
import { ormOptions } from "./store/orm.js";

export type ObserverConfig = ConfigOf<typeof observerConfigSchema>;

/** What startObserver would otherwise make itself. */
export interface ObserverDeps {
  logger?: Logger;
  /** The payins service it reports to (default: a client of PAYINS_URL with the observer's credential). */
  payins?: Pick<Client<typeof payinsV1.PayinsService>, "recordObservations">;
  /** The clock passes, relays, leases and the status read the time from (default: the system's). */
  clock?: Clock;
}

/**
 * The chain observer's composition root, with the services' one signature
 * (StartService): migrations (MIGRATE_ON_BOOT), its own small Database (four connections), one loop per
 * configured rail under a per-rail lease, the relay to payins, and GET /health
 * on OBSERVER_PORT (the RunningService's port). It starts without asking the
 * chains anything: a provider outage leaves its rail not ready, never the process down.
 */
export const startObserver: StartService<ObserverConfig, ObserverDeps> = async (config, deps = {}) => {
  const logger = deps.logger ?? createLogger("observer", { level: config.LOG_LEVEL });
  if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
  const db = await openDatabase({ ...ormOptions(config.DATABASE_URL, 4), applicationName: "allocation observer" });
  const payins =
    deps.payins ?? createServiceClient(payinsV1.PayinsService, { baseUrl: config.PAYINS_URL, serviceToken: config.SERVICE_CREDENTIAL });
  const observer = new Observer({ databaseUrl: config.DATABASE_URL, rails: config.rails, store: new ObservationRepository(db), payins, logger, clock: deps.clock });
  await observer.start();
  let health;
  try {
    health = await startHealthServer(observer, { host: config.HOST, port: config.OBSERVER_PORT });
  } catch (error) {
    await observer.stop();
    await db.close();
    throw error;
  }
  logger.info({ port: health.port, rails: observer.status().filter((r) => r.configured).map((r) => r.rail) }, "observer running");
  let closing: Promise<void> | undefined;
  return {
    name: "observer",
    port: health.port,
    logger,
    close: () =>
      (closing ??= (async () => {
        void health.close();
        await observer.stop();
        await db.close();
      })()),
  };
};
