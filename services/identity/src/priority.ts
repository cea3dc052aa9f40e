import { execFileSync } from "node:child_process";
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
  const tids = threadIds(options);
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

/** The process's threads (Linux; empty elsewhere or when unreadable), the main one left out when asked. */
function threadIds(options: { spareMainThread?: boolean }): number[] {
  if (process.platform !== "linux") return [];
  try {
    const tids = readdirSync("/proc/self/task").map(Number).filter((tid) => Number.isInteger(tid) && tid > 0);
    return options.spareMainThread ? tids.filter((tid) => tid !== process.pid) : tids;
  } catch {
    return [];
  }
}

export interface IdlePolicyChange {
  /** Threads now under SCHED_IDLE. */
  threads: number;
  /** Threads that could not be changed, with the first error. */
  refused: number;
  error?: string;
}

/**
 * Puts the process's threads (all but the main one when `spareMainThread`)
 * under Linux's SCHED_IDLE policy: they run only on a core that nothing else
 * wants, and a waking thread of any other policy takes the core from them at
 * once. A nice value only weighs the share of CPU, so a normal thread woken on a
 * core where a niced argon2 hash runs may still wait for that hash's time slice;
 * under SCHED_IDLE it does not. Node has no call for sched_setscheduler, so this
 * runs util-linux's `chrt --idle` per thread; null where that cannot apply (not
 * Linux). Threads started later inherit the policy of the thread starting them.
 */
export function useIdlePolicy(options: { spareMainThread?: boolean } = {}): IdlePolicyChange | null {
  const tids = threadIds(options);
  if (tids.length === 0) return null;
  const change: IdlePolicyChange = { threads: 0, refused: 0 };
  for (const tid of tids) {
    try {
      execFileSync("chrt", ["--idle", "--pid", "0", String(tid)], { stdio: "ignore", timeout: 5_000 });
      change.threads++;
    } catch (error) {
      change.refused++;
      change.error ??= (error as NodeJS.ErrnoException).code === "ENOENT" ? "chrt (util-linux) is not installed" : (error as Error).message;
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

/** useIdlePolicy, logged: a refusal is a warning, never fatal (the nice value still applies). */
export function applyIdlePolicy(logger: Logger, options: { spareMainThread?: boolean } = {}): void {
  const change = useIdlePolicy(options);
  if (change === null) logger.info("SCHED_IDLE not applied (not Linux)");
  else if (change.refused > 0) logger.warn({ ...change }, "could not put every worker thread under SCHED_IDLE (WORKER_SCHED_IDLE); continuing");
  else logger.info({ ...change }, "worker threads under SCHED_IDLE (WORKER_SCHED_IDLE)");
}
