import { purgeExpiredEvents } from "../domain/events.js";
import type { Deps } from "../domain/deps.js";

/** Events deleted per statement: a bounded transaction each, however many expired at once. */
export const PURGE_BATCH = 1000;
/** Between purges. */
export const PURGE_INTERVAL_MS = 10 * 60_000;

export interface RetentionPurge {
  /** One purge now; answers how many events it deleted. */
  runOnce(): Promise<number>;
  /** Stops the loop and waits for a purge in progress. */
  stop(): Promise<void>;
}

/**
 * Deletes events older than the retention period (with their deliveries and
 * attempts), now and then every `intervalMs`, in batches of PURGE_BATCH. A
 * failed purge is logged and tried again on the next tick. Replicas may purge
 * at once: a row deleted twice is deleted once.
 */
export function startRetentionPurge(options: {
  deps: Deps;
  logger: { warn(fields: object, message: string): void; info(fields: object, message: string): void };
  intervalMs?: number;
}): RetentionPurge {
  const intervalMs = options.intervalMs ?? PURGE_INTERVAL_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const runOnce = () => purgeExpiredEvents(options.deps, PURGE_BATCH);
  const tick = () => {
    running = runOnce()
      .then((deleted) => {
        if (deleted > 0) options.logger.info({ deleted, retention_days: options.deps.retentionDays }, "events past retention deleted");
      })
      .catch((err: unknown) => options.logger.warn({ err }, "retention purge failed; it runs again later"))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  tick();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      clearTimeout(timer);
    },
  };
}
