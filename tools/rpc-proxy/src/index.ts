/**
 * A JSON-RPC proxy in front of a chain endpoint that injects the faults real providers show
 * (outages, rate limits, a `finalized` tag that is `latest`, lagging or duplicated logs,
 * invented logs, tampered receipts, another chain behind the same URL), for tests. It runs
 * as a separate process (src/main.ts) driven over its control channel.
 */
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ProxyFaults } from "./faults.js";

export type { InventedLog, ProxyFaults } from "./faults.js";
export { TRANSFER_TOPIC } from "./proxy-server.js";

export interface RpcProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The proxy process's id. */
  pid: number;
  /** Replaces the active faults (an empty object = plain pass-through). */
  setFaults(faults: ProxyFaults): Promise<void>;
  /** Points the proxy at another upstream (e.g. another anvil chain) from the next request on. */
  setUpstream(url: string): Promise<void>;
  /** JSON-RPC requests answered so far, per method (batch members counted one by one), since start or the last reset. */
  stats(options?: { reset?: boolean }): Promise<Record<string, number>>;
  /** Kills the process and waits for its exit. */
  stop(): Promise<void>;
}

export interface RpcProxyOptions {
  /** The JSON-RPC endpoint behind the proxy. */
  upstream: string;
  /** Faults active from the first request on (default none). */
  faults?: ProxyFaults;
}

const MAIN = fileURLToPath(new URL("./main.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

/** Starts the proxy process in front of `upstream` and resolves once it answers. */
export async function startRpcProxy(options: RpcProxyOptions): Promise<RpcProxy> {
  const child = fork(MAIN, ["--upstream", options.upstream, "--port", "0"], {
    cwd: PACKAGE_DIR,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let port: number;
  try {
    port = await ready(child, exited);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    throw error;
  }
  // The proxy must not keep a test process alive; it exits by itself when this process goes away.
  child.unref();
  child.channel?.unref();
  const url = `http://127.0.0.1:${port}`;
  const control = async (path: string, init?: RequestInit): Promise<unknown> => {
    const response = await fetch(`${url}${path}`, init);
    const text = await response.text();
    if (!response.ok) throw new Error(`rpc-proxy ${path}: HTTP ${response.status} ${text}`);
    return JSON.parse(text) as unknown;
  };
  const postJson = (path: string, body: unknown) => control(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const proxy: RpcProxy = {
    url,
    pid: child.pid!,
    setFaults: async (faults) => {
      await postJson("/__proxy/faults", faults);
    },
    setUpstream: async (upstream) => {
      await postJson("/__proxy/upstream", { url: upstream });
    },
    stats: async (statsOptions) => (await control(`/__proxy/stats${statsOptions?.reset ? "?reset=1" : ""}`)) as Record<string, number>,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.ref();
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
  if (options.faults) {
    try {
      await proxy.setFaults(options.faults);
    } catch (error) {
      await proxy.stop();
      throw error;
    }
  }
  return proxy;
}

function ready(child: ChildProcess, exited: Promise<void>): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("rpc-proxy did not report ready within 30 s")), 30_000);
    child.on("message", (message: { ready?: string; port?: number }) => {
      if (message?.ready === "rpc-proxy" && typeof message.port === "number") {
        clearTimeout(timer);
        resolve(message.port);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`rpc-proxy exited (${child.exitCode ?? child.signalCode}) before it was ready`));
    });
  });
}
