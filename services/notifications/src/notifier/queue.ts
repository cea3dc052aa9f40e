import { Logger as WorkerLogger } from "graphile-worker";
import { sql, type Database } from "@payin/db";
import { loggableError, type Logger } from "@payin/logging";
import { installJobQueue } from "../store/job-queue.js";

/**
 * graphile-worker's log lines through the process logger: its errors and
 * warnings as they are, its info lines at debug. It writes one info line per
 * job ("Completed task …"), which at a thousand deliveries a second cost the
 * notifier more than the deliveries did; the attempts are in the delivery log.
 */
export function workerLogger(logger: Logger): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    if (level !== "error" && level !== "warning" && !logger.isLevelEnabled("debug")) return;
    const fields = { scope, ...(meta?.error ? { err: loggableError(meta.error) } : {}) };
    if (level === "error") logger.error(fields, message);
    else if (level === "warning") logger.warn(fields, message);
    else logger.debug(fields, message);
  });
}

const LOCK = sql(`select pg_advisory_xact_lock(hashtext('graphile_worker migrate'))`);

/**
 * Installs or upgrades graphile-worker's schema (the service's installJobQueue),
 * one notifier at a time: graphile-worker's own migration is not safe when
 * several processes start together on a new database, so each holds a
 * transaction-scoped advisory lock on another connection of `db` while it runs.
 */
export async function migrateQueue(db: Database, databaseUrl: string, logger: Logger): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(LOCK);
    await installJobQueue(databaseUrl, (level, message) => {
      if (level === "error" || level === "warning") logger.warn({ graphile_worker: level }, message);
    });
  });
}
