import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import net from "node:net";
import path from "node:path";

/** A running anvil chain. */
export interface AnvilChain {
  chainId: number;
  /** Its JSON-RPC endpoint, http://127.0.0.1:<port>. */
  url: string;
  port: number;
  /** Stops the chain (its state is gone) and resolves once the process has exited. */
  stop(): Promise<void>;
}

export interface AnvilOptions {
  /** A chain id of its own: never 1 or 56, so nothing signed locally is valid on a real network. */
  chainId: number;
  /** Default: a free port. */
  port?: number;
  /** Seconds between blocks; default none: a block per transaction (and on `anvil_mine`). */
  blockTimeS?: number;
  /** Written with anvil's own output (default: discarded). */
  log?: (line: string) => void;
}

/** Chain ids of real networks a local chain must never use (Ethereum, BNB Smart Chain and their main test networks). */
const REAL_CHAIN_IDS = new Set([1, 56, 97, 11155111, 17000, 5]);

/** The anvil binary of @foundry-rs/anvil's package for this platform. */
export function anvilBinary(): string {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const require = createRequire(import.meta.url);
  const manifest = require.resolve(`${platformPackage}/package.json`, { paths: [require.resolve("@foundry-rs/anvil/package.json")] });
  return path.join(path.dirname(manifest), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts an anvil chain on 127.0.0.1 whose `finalized` block moves (one slot
 * per epoch: finalized is head − 2, safe head − 1), and resolves once it
 * answers JSON-RPC.
 */
export async function startAnvil(options: AnvilOptions): Promise<AnvilChain> {
  if (REAL_CHAIN_IDS.has(options.chainId)) throw new Error(`chain id ${options.chainId} belongs to a real network; a local chain needs one of its own`);
  const port = options.port ?? (await freePort());
  const args = ["--host", "127.0.0.1", "--port", String(port), "--chain-id", String(options.chainId), "--slots-in-an-epoch", "1", "--silent"];
  if (options.blockTimeS !== undefined) args.push("--block-time", String(options.blockTimeS));
  const child = spawn(anvilBinary(), args, { stdio: ["ignore", "pipe", "pipe"] });
  const forward = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) if (line.trim()) options.log?.(line);
  };
  child.stdout.on("data", forward);
  child.stderr.on("data", forward);
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    await waitForRpc(url, child);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    throw error;
  }
  return {
    chainId: options.chainId,
    url,
    port,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Resolves once the endpoint answers eth_chainId; fails when the process exits first or after 20 s. */
async function waitForRpc(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`anvil exited (${child.exitCode ?? child.signalCode}) before it answered`);
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`anvil did not answer on ${url} within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
