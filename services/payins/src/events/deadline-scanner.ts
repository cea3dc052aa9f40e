import type { Clock, Database } from "@payin/db";
import { tellPassedDeadlines } from "../store/deadline-store.js";
import { startLoop, type Loop, type LoopLogger } from "./background-loop.js";

/** Intents told per transaction. */
export const DEADLINE_BATCH = 200;
/** Between scans when none was due: a deadline is told within about this long. */
export const DEADLINE_SCAN_MS = 1_000;

/**
 * Starts the deadline scanner in this process: each pass tells up to a batch
 * of intents whose deadline passed unpaid (pay_in_intent.deadline_passed,
 * once each: several replicas may scan, see tellPassedDeadlines).
 */
export function startDeadlineScanner(options: { db: Database; clock: Clock; logger: LoopLogger; intervalMs?: number; batch?: number }): Loop {
  const batch = options.batch ?? DEADLINE_BATCH;
  return startLoop({
    pass: async () => (await tellPassedDeadlines(options.db, options.clock.now(), batch)) === batch,
    idleMs: options.intervalMs ?? DEADLINE_SCAN_MS,
    minBackoffMs: 1_000,
    maxBackoffMs: 30_000,
    logger: options.logger,
    failing: "the deadline scan failed; passed deadlines are told once it succeeds",
    recovered: "the deadline scan succeeds again",
  });
}
