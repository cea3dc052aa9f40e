import { pbkdf2 } from "node:crypto";
import { readdirSync } from "node:fs";
import os from "node:os";
import type { Logger } from "@payin/logging";

export interface PriorityChange {
  /** Nice value before the change. */
  from: number;
  /** Nice value asked for. */
  to: number;
  /** Threads whose priority was lowered (on Linux every thread of the process; elsewhere the process). */
  threads: number;
  /** Threads the system refused to change, with the first error. */
  refused: number;
  error?: string;
}

/**
 * Lowers the scheduling priority of the process's threads to the nice value
 * `nice` (0–19; PROCESS_NICE). It never raises priority: when the process
 * already runs at `nice` or lower priority, nothing changes (null).
 *
 * On Linux the nice value belongs to each thread, and `os.setPriority(0, …)`
 * changes only the calling one; threads started before (V8's helpers, libuv's
 * pool if it already ran) would keep their priority, and libuv's pool threads are
 * the ones computing argon2. So on Linux every thread in /proc/self/task is
 * changed, except the main thread when `spareMainThread` is set: then only the
 * work handed to threads (argon2 in libuv's pool) runs at the lower priority,
 * while the event loop (RPCs, SQL) keeps its own. Threads started later inherit
 * the main thread's value, so libuv's pool must be running by then (see
 * startThreadPool). Elsewhere the whole process is lowered.
 */
export function lowerProcessPriority(nice: number, options: { spareMainThread?: boolean } = {}): PriorityChange | null {
  const from = os.getPriority();
  if (nice <= from) return null;
  let tids: number[] = [];
  if (process.platform === "linux") {
    try {
      tids = readdirSync("/proc/self/task").map(Number).filter((tid) => Number.isInteger(tid) && tid > 0);
    } catch {
      tids = [];
    }
  }
  if (options.spareMainThread) tids = tids.filter((tid) => tid !== process.pid);
  const targets = tids.length > 0 ? tids : [0];
  const change: PriorityChange = { from, to: nice, threads: 0, refused: 0 };
  for (const tid of targets) {
    try {
      os.setPriority(tid, nice);
      change.threads++;
    } catch (error) {
      change.refused++;
      change.error ??= (error as Error).message;
    }
  }
  return change;
}

/**
 * Starts libuv's thread pool (all its threads start with the first piece of
 * work), so that lowering the priority of the threads running now reaches it.
 */
export function startThreadPool(): Promise<void> {
  return new Promise((resolve) => pbkdf2("pool", "start", 1, 16, "sha256", () => resolve()));
}

/** lowerProcessPriority, logged: a refusal is a warning, never fatal. */
export function applyProcessNice(nice: number, logger: Logger, options: { spareMainThread?: boolean } = {}): void {
  const change = lowerProcessPriority(nice, options);
  if (change === null) {
    logger.info({ nice: os.getPriority(), requested: nice }, "process priority left as it is");
  } else if (change.refused > 0) {
    logger.warn({ ...change }, "could not lower the process priority (PROCESS_NICE) for every thread; continuing");
  } else {
    logger.info({ ...change }, "process priority lowered (PROCESS_NICE)");
  }
}
