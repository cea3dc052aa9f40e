import { fork, type ChildProcess } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import path from "node:path";
import { assertionKeysFor, callerDigestsFor, deriveCredential, deriveWebhookSecretKey } from "@payin/config";
import { REPO_ROOT } from "./paths.js";

export { REPO_ROOT };
export * from "./local-settings.js";

/** A process of the platform: where its entry point is and which variable sets its port. */
export interface ProcessSpec {
  name: string;
  entry: string;
  portVariable: string;
}

/** The five services, in the order they start: payins last (it calls the others). */
export const SERVICES: ProcessSpec[] = [
  { name: "identity", entry: "services/identity/src/main.ts", portVariable: "IDENTITY_PORT" },
  { name: "merchants", entry: "services/merchants/src/main.ts", portVariable: "MERCHANTS_PORT" },
  { name: "notifications", entry: "services/notifications/src/main.ts", portVariable: "NOTIFICATIONS_PORT" },
  { name: "allocation", entry: "services/allocation/src/main.ts", portVariable: "ALLOCATION_PORT" },
  { name: "payins", entry: "services/payins/src/main.ts", portVariable: "PAYINS_PORT" },
];
/** The service that starts after the others (it calls them): payins. */
const LAST_SERVICE = "payins";
/** allocation's chain observer: its own process, started after payins (to which it reports). */
export const OBSERVER: ProcessSpec = { name: "observer", entry: "services/allocation/src/observer-main.ts", portVariable: "OBSERVER_PORT" };
/**
 * The notifications service's webhook notifier: its own process, started after
 * the services (notifications' boot installs the delivery queue it works from).
 */
export const NOTIFIER: ProcessSpec = { name: "notifier", entry: "services/notifications/src/notifier-main.ts", portVariable: "NOTIFIER_PORT" };
export const GATEWAYS: ProcessSpec[] = [
  { name: "api", entry: "gateways/api/src/main.ts", portVariable: "API_PORT" },
  { name: "checkout", entry: "gateways/checkout/src/main.ts", portVariable: "CHECKOUT_PORT" },
];
/** Every process of the platform. */
export const PLATFORM_PROCESSES: readonly ProcessSpec[] = [...SERVICES, OBSERVER, NOTIFIER, ...GATEWAYS];

/**
 * The internal callers whose credentials every service recognises when the
 * launcher derives them: the processes that call services, and the operator CLI.
 * Each service's own allowlist (src/rpc/callers.ts) says what each may call.
 */
export const INTERNAL_CALLERS: readonly string[] = ["api", "checkout", "payins", "allocation", "observer", "identity", "notifications", "payinctl"];

/** The processes that seal or open webhook endpoints' secrets: they get WEBHOOK_SECRET_KEY (see processEnv). */
const WEBHOOK_SECRET_HOLDERS: ReadonlySet<string> = new Set(["notifications", "notifier"]);

/**
 * The environment a process starts with. When it holds the master secret
 * (SERVICE_TOKEN), the process gets instead only what it needs of it: its own
 * credential (SERVICE_CREDENTIAL, derived for its name) and the digests of the
 * callers' credentials (SERVICE_CALLER_DIGESTS, for INTERNAL_CALLERS and
 * `extraCallers`), and the actor assertion keys (ACTOR_ASSERTION_PUBLIC_KEY;
 * identity also ACTOR_ASSERTION_SIGNING_KEY); the notifications service and
 * the notifier the key sealing webhook secrets (WEBHOOK_SECRET_KEY). Without
 * it, the environment is passed as it is (credentials, digests and keys set by
 * whoever deploys).
 */
export function processEnv(
  name: string,
  env: Record<string, string | undefined>,
  extraCallers: readonly string[] = [],
): Record<string, string | undefined> {
  const out = { ...env };
  const master = out.SERVICE_TOKEN;
  if (master) {
    delete out.SERVICE_TOKEN;
    out.SERVICE_CREDENTIAL = deriveCredential(master, name);
    out.SERVICE_CALLER_DIGESTS = callerDigestsFor(master, [...new Set([...INTERNAL_CALLERS, ...extraCallers])]);
    // Identity alone signs actor assertions; every process may verify them.
    const keys = assertionKeysFor(master);
    out.ACTOR_ASSERTION_PUBLIC_KEY = keys.ACTOR_ASSERTION_PUBLIC_KEY;
    if (name === "identity") out.ACTOR_ASSERTION_SIGNING_KEY = keys.ACTOR_ASSERTION_SIGNING_KEY;
    if (WEBHOOK_SECRET_HOLDERS.has(name)) out.WEBHOOK_SECRET_KEY = deriveWebhookSecretKey(master);
  }
  return out;
}

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
  /** Extra Node.js flags for a process (e.g. `--cpu-prof` when profiling). */
  nodeArgs?: (name: string) => string[];
  /** Callers beyond INTERNAL_CALLERS the services recognise (the test harness's `test`); see processEnv. */
  extraCallers?: readonly string[];
}

const outputs = new Map<string, WriteStream>();

function outputStream(file: string): WriteStream {
  let stream = outputs.get(file);
  if (!stream) {
    stream = createWriteStream(file, { flags: "a" });
    // Every process of a platform pipes its stdout and stderr into the one file.
    stream.setMaxListeners(64);
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
    // The master secret never reaches a process: see processEnv.
    env: processEnv(spec.name, { ...process.env, ...options.env }, options.extraCallers) as NodeJS.ProcessEnv,
    execArgv: ["--import", "tsx", ...(options.nodeArgs?.(spec.name) ?? [])],
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

/** Kills a process at once (SIGKILL), as a crash would: no draining, no clean-up. Resolves once it has exited. */
export async function killProcess(proc: RunningProcess): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill("SIGKILL");
  await proc.exited;
}

export interface Platform {
  /** Every running process by name. */
  readonly processes: Map<string, RunningProcess>;
  /** The environment every process was started with. */
  readonly env: Record<string, string>;
  /** Stops one process (SIGTERM, then SIGKILL). */
  stop(name: string): Promise<void>;
  /** Kills one process at once (SIGKILL) and waits for it to exit. */
  kill(name: string): Promise<void>;
  /** Starts a stopped process again with the same environment. */
  start(name: string): Promise<void>;
  /** Stops everything, gateways first. */
  stopAll(): Promise<void>;
}

/**
 * Starts the services (identity, merchants, notifications and allocation
 * together, then payins, which calls them) and then the chain observer, the
 * webhook notifier and the gateways, all with `env`. Ports come from `env`; each process migrates
 * its own schema on boot.
 */
export async function launchPlatform(options: StartOptions & { env: Record<string, string> }): Promise<Platform> {
  const processes = new Map<string, RunningProcess>();
  const specs = new Map(PLATFORM_PROCESSES.map((s) => [s.name, s]));
  const start = async (name: string) => {
    const spec = specs.get(name);
    if (!spec) throw new Error(`unknown process ${name}`);
    processes.set(name, await startProcess(spec, options));
  };
  const stop = async (name: string) => {
    const proc = processes.get(name);
    if (proc) await stopProcess(proc);
  };
  const kill = async (name: string) => {
    const proc = processes.get(name);
    if (proc) await killProcess(proc);
  };
  const stopAll = async () => {
    for (const group of [[...GATEWAYS, OBSERVER, NOTIFIER], SERVICES.filter((s) => s.name === LAST_SERVICE), SERVICES.filter((s) => s.name !== LAST_SERVICE)]) {
      await Promise.all(group.map((s) => stop(s.name)));
    }
  };
  try {
    await Promise.all(SERVICES.filter((s) => s.name !== LAST_SERVICE).map((s) => start(s.name)));
    await start(LAST_SERVICE);
    await Promise.all([OBSERVER, NOTIFIER, ...GATEWAYS].map((s) => start(s.name)));
  } catch (error) {
    await stopAll();
    throw error;
  }
  return { processes, env: options.env, stop, kill, start, stopAll };
}
