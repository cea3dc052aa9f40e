import { fork, type ChildProcess } from "node:child_process";
import type { WriteStream } from "node:fs";
import { fileURLToPath } from "node:url";

/** Every child the bench started itself, so that it can end them on any exit. */
const children = new Set<ChildProcess>();

/** Absolute path of a script next to this file. */
export function script(name: string): string {
  return fileURLToPath(new URL(`./${name}`, import.meta.url));
}

function forkScript(file: string, env: Record<string, string>, log: WriteStream): ChildProcess {
  const child = fork(file, [], {
    env: { ...process.env, ...env },
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  children.add(child);
  child.once("exit", () => children.delete(child));
  child.stderr?.pipe(log, { end: false });
  return child;
}

export interface ChildHooks {
  /** Called with the child's pid once it is started. */
  onStart?: (pid: number) => void;
  /** Called with every IPC message of the child; `reply` sends one back. */
  onMessage?: (message: unknown, reply: (answer: unknown) => void) => void;
}

/**
 * Runs a script that does one job and prints its result as one JSON line on
 * stdout; resolves with that result. `config` travels in BENCH_CHILD_CONFIG.
 */
export async function runJsonChild<T>(name: string, config: unknown, log: WriteStream, hooks: ChildHooks = {}): Promise<T> {
  const child = forkScript(script(name), { BENCH_CHILD_CONFIG: JSON.stringify(config) }, log);
  if (child.pid) hooks.onStart?.(child.pid);
  if (hooks.onMessage) {
    const onMessage = hooks.onMessage;
    const reply = (answer: unknown) => {
      // The child may be gone already; a failed send is not an error of the run.
      if (child.connected) child.send(answer as object, () => {});
    };
    child.on("message", (message) => onMessage(message, reply));
  }
  let stdout = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => {
    stdout += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (c) => resolve(c));
  });
  const line = stdout.trim().split("\n").pop() ?? "";
  if (code !== 0 || !line.startsWith("{")) {
    throw new Error(`${name} exited with code ${code}${line ? `: ${line.slice(0, 300)}` : ""} (see the bench log)`);
  }
  return JSON.parse(line) as T;
}

export interface ServerChild {
  readonly child: ChildProcess;
  readonly port: number;
}

/** Starts a long-running script and waits for its `{ready, port}` IPC message. */
export async function startServerChild(name: string, env: Record<string, string>, log: WriteStream): Promise<ServerChild> {
  const child = forkScript(script(name), env, log);
  child.stdout?.pipe(log, { end: false });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not become ready in time`)), 30_000);
    child.on("message", (message: { ready?: string; port?: number }) => {
      if (message?.ready && typeof message.port === "number") {
        clearTimeout(timer);
        resolve(message.port);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before it was ready`));
    });
  });
  return { child, port };
}

/** Ends one child: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Ends every child the bench started that is still running. */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...children].map((child) => stopChild(child)));
}
