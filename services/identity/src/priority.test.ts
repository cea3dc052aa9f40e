import { execFileSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs `code` (an ES module importing ./priority.ts) in a fresh node process; answers its stdout as JSON. */
function inChild(code: string): unknown {
  const text = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], { cwd: here, encoding: "utf8" });
  return JSON.parse(text);
}

/**
 * Child-side helpers: `tids` (every thread of the process) and
 * `niceOf(tid)` / `policyOf(tid)` from /proc/self/task/<tid>/stat (fields 19
 * and 41; policy 0 is SCHED_OTHER, 5 SCHED_IDLE).
 */
const threadStats = `
  const { readdirSync, readFileSync } = await import("node:fs");
  const tids = readdirSync("/proc/self/task").map(Number);
  const statField = (tid, field) => {
    const stat = readFileSync("/proc/self/task/" + tid + "/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[field - 3]);
  };
  const niceOf = (tid) => statField(tid, 19);
  const policyOf = (tid) => statField(tid, 41);
`;

describe.runIf(process.platform === "linux")("lowering the process priority (PROCESS_NICE)", () => {
  it("lowers every thread of the process, including the ones already running", () => {
    const result = inChild(`
      import { pbkdf2 } from "node:crypto";
      import { lowerProcessPriority } from "./priority.ts";
      // Start libuv's pool before lowering, as an early async call at boot would.
      await new Promise((resolve) => pbkdf2("x", "y", 1, 32, "sha256", resolve));
      const change = lowerProcessPriority(7);
      ${threadStats}
      process.stdout.write(JSON.stringify({ change, nices: tids.map(niceOf) }));
    `) as { change: { from: number; to: number; threads: number; refused: number }; nices: number[] };
    expect(result.change).toMatchObject({ to: 7, refused: 0 });
    expect(result.change.threads).toBeGreaterThan(4); // main, V8 helpers, libuv's pool
    expect(new Set(result.nices)).toEqual(new Set([7]));
  });

  it("can spare the main thread: the pool threads computing argon2 are lowered, the event loop is not", () => {
    const result = inChild(`
      import { lowerProcessPriority, startThreadPool } from "./priority.ts";
      await startThreadPool();
      const change = lowerProcessPriority(9, { spareMainThread: true });
      ${threadStats}
      const nices = tids.map(niceOf);
      process.stdout.write(JSON.stringify({ change, main: niceOf(process.pid), others: nices.length - 1, lowered: nices.filter((n) => n === 9).length }));
    `) as { change: { refused: number; threads: number }; main: number; others: number; lowered: number };
    expect(result.main).toBe(0);
    expect(result.change.refused).toBe(0);
    expect(result.others).toBeGreaterThanOrEqual(4); // at least libuv's pool of 4
    expect(result.lowered).toBe(result.others);
  });

  it("puts every thread but the main one under SCHED_IDLE", () => {
    const result = inChild(`
      import { startThreadPool, useIdlePolicy } from "./priority.ts";
      await startThreadPool();
      const change = useIdlePolicy({ spareMainThread: true });
      ${threadStats}
      const others = tids.filter((tid) => tid !== process.pid).map(policyOf);
      process.stdout.write(JSON.stringify({ change, main: policyOf(process.pid), others }));
    `) as { change: { threads: number; refused: number; error?: string }; main: number; others: number[] };
    expect(result.change.refused, result.change.error).toBe(0);
    expect(result.main).toBe(0);
    expect(result.others.length).toBeGreaterThanOrEqual(4);
    expect(new Set(result.others)).toEqual(new Set([5]));
  });

  it("never raises priority: 0, or a value at or below the current one, changes nothing", () => {
    const result = inChild(`
      import os from "node:os";
      import { lowerProcessPriority } from "./priority.ts";
      const first = lowerProcessPriority(5);
      const again = lowerProcessPriority(3);
      const zero = lowerProcessPriority(0);
      process.stdout.write(JSON.stringify({ first: first?.to, again, zero, now: os.getPriority() }));
    `);
    expect(result).toEqual({ first: 5, again: null, zero: null, now: 5 });
  });
});
