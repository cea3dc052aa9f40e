/**
 * The chain observer: its own process (placed and scaled apart from address
 * allocation), one loop per configured rail under a per-rail lease, and the
 * relay of what it observed to payins. GET /health on OBSERVER_PORT tells how
 * each rail stands.
 */
import { ConfigError, loadConfig } from "@payin/config";
import { migrate } from "@payin/db";
import { createLogger } from "@payin/logging";
import { payinsV1 } from "@payin/proto";
import { railsFromEnv, type RailsConfig } from "@payin/rails";
import { createServiceClient } from "@payin/rpc";
import pg from "pg";
import { observerConfigSchema } from "./config.js";
import { startHealthServer } from "./observer/health-server.js";
import { Observer } from "./observer/observer.js";
import { ObservationRepository } from "./store/observation-repository.js";
import { ormOptions } from "./store/orm.js";

const config = loadConfig(observerConfigSchema);
let rails: RailsConfig;
try {
  rails = railsFromEnv();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(78);
}
const logger = createLogger("observer");
if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max: 4, application_name: "allocation observer", options: "-c search_path=allocation" });
pool.on("error", (error) => logger.warn({ reason: error.message }, "an idle database connection failed"));
const payins = createServiceClient(payinsV1.PayinsService, { baseUrl: config.PAYINS_URL, serviceToken: config.SERVICE_CREDENTIAL });
const observer = new Observer({ databaseUrl: config.DATABASE_URL, rails, store: new ObservationRepository(pool), payins, logger });
// Starts without asking the chains anything: a provider outage leaves its rail not ready, never the process down.
await observer.start();

const health = await startHealthServer(observer, { host: config.HOST, port: config.OBSERVER_PORT });
const port = health.port;
logger.info({ port, rails: observer.status().filter((r) => r.configured).map((r) => r.rail) }, "observer running");

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "observer stopping");
  const force = setTimeout(() => process.exit(1), 8_000);
  force.unref();
  void health.close();
  await observer.stop();
  await pool.end();
  process.exit(0);
};
process.once("SIGINT", () => void stop("SIGINT"));
process.once("SIGTERM", () => void stop("SIGTERM"));
if (process.send) {
  process.once("disconnect", () => void stop("parent exited"));
  process.send({ ready: "observer", port });
}
