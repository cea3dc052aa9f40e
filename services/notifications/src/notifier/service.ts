import type { ConfigOf } from "@payin/config";
import { migrate, openDatabase } from "@payin/db";
import { createLogger, type Logger } from "@payin/logging";
import type { StartService } from "@payin/rpc";
import { dnsServersLookup } from "../domain/webhook-url.js";
import { ormOptions } from "../store/orm.js";
import type { notifierConfigSchema } from "./config.js";
import { startHealthServer } from "./health-server.js";
import { Notifier } from "./notifier.js";
import { migrateQueue } from "./queue.js";

export type NotifierConfig = ConfigOf<typeof notifierConfigSchema>;

/**
 * The notifier's sessions commit without waiting for the WAL flush
 * (synchronous_commit off). Safe for what it writes: every transaction it
 * commits (an attempt recorded, a job taken, completed or queued again) is
 * followed, in the WAL, by the commit that retires the job or by nothing the
 * delivery depends on, so a crash loses at most a suffix of them; the job is
 * then still there and the delivery is attempted again (at least once). The
 * events and their jobs are written by the notifications service, which
 * commits synchronously.
 */
export function asyncCommitUrl(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const options = url.searchParams.get("options");
  url.searchParams.set("options", `${options ? `${options} ` : ""}-c synchronous_commit=off`);
  return url.toString();
}

export interface NotifierDeps {
  logger?: Logger;
  random?: () => number;
}

/**
 * The notifier's composition root (StartService): migrations (MIGRATE_ON_BOOT:
 * the notifications schema, then graphile-worker's), its Database, the
 * graphile-worker runner with the `deliver` task and the heartbeat (Notifier),
 * and GET /health on NOTIFIER_PORT (the RunningService's port). Several
 * notifiers may run on one database: each job is taken by one of them.
 */
export const startNotifier: StartService<NotifierConfig, NotifierDeps> = async (config, deps = {}) => {
  const logger = deps.logger ?? createLogger("notifier", { level: config.LOG_LEVEL });
  if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
  const databaseUrl = asyncCommitUrl(config.DATABASE_URL);
  // Loads and successes of the deliveries running together share statements (delivery-store.ts): a pool far smaller than the concurrency serves it.
  const db = await openDatabase({ ...ormOptions(databaseUrl, Math.min(config.NOTIFIER_CONCURRENCY, 16) + 4), applicationName: "notifications notifier" });
  try {
    // The queue's schema is always brought up to date: the runner needs it (graphile-worker would migrate it itself, unserialised).
    await migrateQueue(db, databaseUrl, logger);
  } catch (error) {
    await db.close();
    throw error;
  }
  const notifier = new Notifier({
    databaseUrl,
    db,
    sealingKey: config.WEBHOOK_SECRET_KEY,
    allowInsecureUrls: config.WEBHOOK_ALLOW_INSECURE_URLS === "true",
    lookup: config.WEBHOOK_DNS_SERVERS.length > 0 ? dnsServersLookup(config.WEBHOOK_DNS_SERVERS) : undefined,
    concurrency: config.NOTIFIER_CONCURRENCY,
    endpointConcurrency: config.NOTIFIER_ENDPOINT_CONCURRENCY,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    pollIntervalMs: config.NOTIFIER_POLL_INTERVAL_MS,
    localQueueSize: config.NOTIFIER_LOCAL_QUEUE_SIZE,
    completeBatchMs: config.NOTIFIER_COMPLETE_BATCH_MS,
    heartbeatMs: config.NOTIFIER_HEARTBEAT_MS,
    staleAfterMs: config.NOTIFIER_STALE_AFTER_MS,
    logger,
    random: deps.random,
  });
  let health;
  try {
    await notifier.start();
    health = await startHealthServer(notifier, db, { host: config.HOST, port: config.NOTIFIER_PORT });
  } catch (error) {
    await notifier.stop();
    await db.close();
    throw error;
  }
  logger.info({ port: health.port, worker_id: notifier.workerId, concurrency: config.NOTIFIER_CONCURRENCY }, "notifier running");
  let closing: Promise<void> | undefined;
  return {
    name: "notifier",
    port: health.port,
    logger,
    close: () =>
      (closing ??= (async () => {
        await health.close();
        await notifier.stop();
        await db.close();
      })()),
  };
};
