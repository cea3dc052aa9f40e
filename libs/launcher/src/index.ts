import { fork, type ChildProcess } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

/** Root of the repository (this file is libs/launcher/src/index.ts). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/** A process of the platform: where its entry point is and which variable sets its port. */
export interface ProcessSpec {
  name: string;
  entry: string;
  portVariable: string;
}

/** The four services, then the gateways: the order they start in. */
export const SERVICES: ProcessSpec[] = [
  { name: "identity", entry: "services/identity/src/main.ts", portVariable: "IDENTITY_PORT" },
  { name: "merchants", entry: "services/merchants/src/main.ts", portVariable: "MERCHANTS_PORT" },
  { name: "allocation", entry: "services/allocation/src/main.ts", portVariable: "ALLOCATION_PORT" },
  { name: "payins", entry: "services/payins/src/main.ts", portVariable: "PAYINS_PORT" },
];
export const GATEWAYS: ProcessSpec[] = [
  { name: "api", entry: "gateways/api/src/main.ts", portVariable: "API_PORT" },
];

export interface RunningProcess {
  readonly spec: ProcessSpec;
  readonly child: ChildProcess;
  readonly port: number;
  /** Resolves with the exit code once the process has ended. */
  readonly exited: Promise<number | null>;
}

export interface StartOptions {
  env: Record<string, string | undefined>;
  /** Where stdout/stderr go: a file path, "inherit", or "ignore". */
  output?: string | "inherit" | "ignore";
  /** How long to wait for the ready message. */
  readyTimeoutMs?: number;
}

const outputs = new Map<string, WriteStream>();

function outputStream(file: string): WriteStream {
  let stream = outputs.get(file);
  if (!stream) {
    stream = createWriteStream(file, { flags: "a" });
    outputs.set(file, stream);
  }
  return stream;
}

/**
 * Starts one process under tsx and waits until it reports ready over IPC (the RPC
 * servers and gateways send `{ready, port}` once listening). Rejects if it exits
 * first or does not become ready in time.
 */
export async function startProcess(spec: ProcessSpec, options: StartOptions): Promise<RunningProcess> {
  const output = options.output ?? "inherit";
  const child = fork(path.join(REPO_ROOT, spec.entry), [], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...options.env } as NodeJS.ProcessEnv,
    execArgv: ["--import", "tsx"],
    stdio: output === "inherit" ? ["ignore", "inherit", "inherit", "ipc"] : ["ignore", "pipe", "pipe", "ipc"],
  });
  if (output !== "inherit" && output !== "ignore") {
    const stream = outputStream(output);
    child.stdout?.pipe(stream, { end: false });
    child.stderr?.pipe(stream, { end: false });
  } else if (output === "ignore") {
    child.stdout?.resume();
    child.stderr?.resume();
  }
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${spec.name} did not become ready in time`));
    }, options.readyTimeoutMs ?? 60_000);
    child.on("message", (message: { ready?: string; port?: number }) => {
      if (message?.ready && typeof message.port === "number") {
        clearTimeout(timer);
        resolve(message.port);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${spec.name} exited with code ${code} before it was ready`));
    });
  });
  return { spec, child, port, exited };
}

/** Asks a process to stop (SIGTERM), then kills it if it has not ended in `graceMs`. */
export async function stopProcess(proc: RunningProcess, graceMs = 8_000): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill("SIGTERM");
  const timer = setTimeout(() => proc.child.kill("SIGKILL"), graceMs);
  await proc.exited;
  clearTimeout(timer);
}
