/**
 * `npm start` (tools/stack/src/main.ts) as a real process tree for the stack's
 * tests: started in a process group of its own, its output collected, its
 * processes found in /proc (Linux only).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { chmod, mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort } from "@payin/db-embedded";
import { REPO_ROOT } from "@payin/launcher";

const MAIN = path.join(REPO_ROOT, "tools/stack/src/main.ts");

export interface StackRun {
  readonly child: ChildProcess;
  readonly pid: number;
  stdout: string;
  stderr: string;
  /** Exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

/** Variables of the test's own environment the stack must not see. */
const SCRUBBED = ["DATABASE_URL", "SERVICE_TOKEN", "TOTP_ENCRYPTION_KEY", "PG_PORT", "BOOTSTRAP_ADMIN_EMAIL", "HOST"];

export function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (SCRUBBED.includes(name) || /_(PORT|URL)$/.test(name)) delete env[name];
  // As startTestPlatform does: identity at the lowest priority could miss deadlines on a small, busy machine.
  return { ...env, LOG_LEVEL: "info", PROCESS_NICE: "0", WORKER_SCHED_IDLE: "false", ...extra };
}

/** Starts the stack's main in a process group of its own (the test's group is spared its signals). */
export function startStack(env: NodeJS.ProcessEnv): StackRun {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN], { cwd: REPO_ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const run: StackRun = {
    child,
    pid: child.pid!,
    stdout: "",
    stderr: "",
    exited: new Promise((resolve) => child.once("exit", (code) => resolve(code))),
  };
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (run.stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (run.stderr += chunk));
  return run;
}

/**
 * Resolves once the stack says it is running; rejects when it exits first or
 * takes longer than `ms` (generous: on a busy two-core machine a start has taken
 * over a minute).
 */
export async function ready(run: StackRun, ms = 150_000): Promise<void> {
  const deadline = Date.now() + ms;
  let exited = false;
  void run.exited.then(() => (exited = true));
  while (!run.stdout.includes("press Ctrl-C to stop")) {
    if (exited || Date.now() > deadline) {
      throw new Error(`the stack did not become ready (${exited ? "it exited" : "timeout"}):\n${run.stdout}\n${run.stderr}`);
    }
    await sleep(100);
  }
}

/** Waits for a run's exit, killing its process group (SIGKILL) after `ms`. */
export async function exitOf(run: StackRun, ms: number): Promise<number | null | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms)));
  const result = await Promise.race([run.exited, timeout]);
  clearTimeout(timer);
  if (result === "timeout") killTree(run.pid);
  return result;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------- processes, from /proc ----------

interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
}

function procInfo(pid: number): ProcInfo | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid] = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(ppid), state: state! };
  } catch {
    return undefined;
  }
}

export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}

/** Every process below `root` (children, their children, …). */
export function descendants(root: number): number[] {
  const byParent = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const info = procInfo(Number(entry));
    if (info) byParent.set(info.ppid, [...(byParent.get(info.ppid) ?? []), info.pid]);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of byParent.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** Running (a zombie has ended; only its parent has yet to collect it). */
export function alive(pid: number): boolean {
  const info = procInfo(pid);
  return info !== undefined && info.state !== "Z";
}

export function killTree(root: number): void {
  for (const pid of [root, ...descendants(root)]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
}

/** The port variables of the platform's processes. */
export const PORT_VARIABLES = ["API_PORT", "CHECKOUT_PORT", "IDENTITY_PORT", "MERCHANTS_PORT", "PAYINS_PORT", "ALLOCATION_PORT", "OBSERVER_PORT", "NOTIFICATIONS_PORT", "NOTIFIER_PORT"];

/**
 * A fresh data directory under the system's temporary directory and an
 * environment giving every process, and the embedded PostgreSQL, a free port.
 */
export async function freshStackEnv(extra: Record<string, string> = {}): Promise<{ dataDir: string; env: NodeJS.ProcessEnv; pgPort: number }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "payin-stack-"));
  // PostgreSQL runs as the postgres user when the tests run as root: it must reach its directory.
  await chmod(dataDir, 0o755);
  const pgPort = await freePort();
  const ports: Record<string, string> = {};
  for (const name of PORT_VARIABLES) ports[name] = String(await freePort());
  return { dataDir, pgPort, env: baseEnv({ ...ports, PAYIN_DATA_DIR: dataDir, PG_PORT: String(pgPort), ...extra }) };
}

/** Polls `check` every 100 ms until it answers something other than undefined; throws, saying `what`, after `ms`. */
export async function until<T>(what: string, ms: number, check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting until ${what}`);
    await sleep(100);
  }
}
