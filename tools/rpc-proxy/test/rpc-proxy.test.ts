import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { LOCAL_CHAIN_IDS, mineBlocks, startLocalChains, transferToken, type LocalChains, type LocalRail } from "@payin/local-chains";
import {
  BaseError,
  createPublicClient,
  decodeEventLog,
  erc20Abi,
  HttpRequestError,
  http,
  LimitExceededRpcError,
  parseAbiItem,
  parseUnits,
  RpcRequestError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startRpcProxy, TRANSFER_TOPIC, type RpcProxy } from "../src/index.js";

const TRANSFER = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

let chains: LocalChains;
let rail: LocalRail;
let proxy: RpcProxy;
/** The chain through the proxy. */
let client: PublicClient;
/** The same chain, directly. */
let direct: PublicClient;

beforeAll(async () => {
  chains = await startLocalChains();
  rail = chains.rails.erc20;
  direct = rail.publicClient;
  proxy = await startRpcProxy({ upstream: rail.chain.url });
  client = createPublicClient({ transport: http(proxy.url, { retryCount: 0 }), cacheTime: 0 }) as PublicClient;
});

afterEach(async () => {
  await proxy?.setFaults({});
  await proxy?.setUpstream(rail.chain.url);
});

afterAll(async () => {
  await proxy?.stop();
  await chains?.stop();
});

interface RawAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/** One raw JSON-RPC request (or batch) to `url`. */
async function raw(url: string, body: unknown): Promise<RawAnswer> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON (an outage answers text)
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

const call = (method: string, params: unknown[] = [], id: number = 1) => ({ jsonrpc: "2.0", id, method, params });

/** The HTTP status viem's transport saw (an HttpRequestError's, or an RpcRequestError's for a JSON-RPC error body), wherever it sits in the error's causes. */
function httpStatus(error: unknown): number | undefined {
  const found = error instanceof BaseError ? error.walk((e) => e instanceof HttpRequestError || e instanceof RpcRequestError) : undefined;
  return found instanceof HttpRequestError || found instanceof RpcRequestError ? found.status : undefined;
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

/** Pays `amount` USDT to a fresh address; answers the address, the transaction and its block. */
async function realTransfer(amount = "2.5"): Promise<{ to: Address; hash: Hex; blockNumber: bigint; blockHash: Hex }> {
  const to = freshAddress();
  const hash = await transferToken(rail, chains.payer, "usdt", to, amount);
  const receipt = await direct.getTransactionReceipt({ hash });
  return { to, hash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash };
}

/** Whether a process is running (a zombie awaiting its reaping does not count). */
function alive(pid: number): boolean {
  if (process.platform === "linux") {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("rpc proxy, without faults", () => {
  it("answers every call, single or batched, exactly as the upstream does", async () => {
    const { hash, blockNumber } = await realTransfer();
    const usdt = rail.tokens.usdt.address;
    const calls = [
      call("eth_chainId"),
      call("eth_getBlockByNumber", [`0x${blockNumber.toString(16)}`, true]),
      call("eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest", address: usdt }]),
      call("eth_getTransactionReceipt", [hash]),
      call("eth_getBlockByNumber", ["finalized", false]),
      call("no_such_method"),
    ];
    for (const c of calls) {
      const [through, straight] = [await raw(proxy.url, c), await raw(rail.chain.url, c)];
      expect(through.status).toBe(straight.status);
      expect(through.body).toEqual(straight.body);
    }
    const batch = calls.map((c, i) => ({ ...c, id: i + 10 }));
    expect((await raw(proxy.url, batch)).body).toEqual((await raw(rail.chain.url, batch)).body);
    const filter = { address: usdt, event: TRANSFER, fromBlock: 0n, toBlock: "latest" } as const;
    expect(await client.getLogs(filter)).toEqual(await direct.getLogs(filter));
  });

  it("answers 502 when the upstream cannot be reached, and refuses a bad control request with 400", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    await proxy.setUpstream(`http://127.0.0.1:${port}`);
    const answer = await raw(proxy.url, call("eth_chainId"));
    expect(answer.status).toBe(502);
    expect(answer.body.error.code).toBe("upstream_unreachable");
    await expect(proxy.setUpstream("ftp://example")).rejects.toThrow(/HTTP 400/);
    await expect(proxy.setFaults({ rateLimit: { count: -1, retryAfterS: 1 } })).rejects.toThrow(/HTTP 400.*rateLimit/);
    await expect(proxy.setFaults({ tamperReceipts: "sometimes" as never })).rejects.toThrow(/HTTP 400.*tamperReceipts/);
    await expect(proxy.setFaults({ unheardOf: true } as never)).rejects.toThrow(/HTTP 400.*unheardOf/);
    await expect(proxy.setFaults({ inventLogs: [{ contract: "0x1", from: freshAddress(), to: freshAddress(), value: "1" }] })).rejects.toThrow(/contract/);
  });
});

describe("rpc proxy faults", () => {
  it("outage: every request answers HTTP 503 until the fault is lifted", async () => {
    await proxy.setFaults({ outage: true });
    expect(httpStatus(await failure(client.getBlockNumber()))).toBe(503);
    expect((await raw(proxy.url, [call("eth_chainId")])).status).toBe(503);
    await proxy.setFaults({});
    expect(await client.getBlockNumber()).toBe(await direct.getBlockNumber());
  });

  it("rateLimit: the next requests answer 429 with Retry-After and a JSON-RPC error, then service resumes", async () => {
    await proxy.setFaults({ rateLimit: { count: 3, retryAfterS: 7 } });
    const limited = await raw(proxy.url, call("eth_chainId", [], 41));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(limited.body).toMatchObject({ jsonrpc: "2.0", id: 41, error: { code: -32005 } });
    const batch = await raw(proxy.url, [call("eth_chainId", [], 1), call("eth_blockNumber", [], 2)]);
    expect(batch.status).toBe(429);
    expect(batch.body.map((a: { id: number }) => a.id)).toEqual([1, 2]);
    const viemSaw = await failure(client.getChainId());
    expect(viemSaw).toBeInstanceOf(LimitExceededRpcError);
    expect(httpStatus(viemSaw)).toBe(429);
    expect(await client.getChainId()).toBe(LOCAL_CHAIN_IDS.erc20);
  });

  it("finalizedIsLatest: the finalized and safe blocks are the head", async () => {
    await mineBlocks(rail, 3);
    const latest = await direct.getBlock({ blockTag: "latest" });
    expect((await client.getBlock({ blockTag: "finalized" })).number).toBe(latest.number - 2n);
    await proxy.setFaults({ finalizedIsLatest: true });
    for (const blockTag of ["finalized", "safe"] as const) {
      const block = await client.getBlock({ blockTag });
      expect(block.number).toBe(latest.number);
      expect(block.hash).toBe(latest.hash);
    }
    expect((await direct.getBlock({ blockTag: "finalized" })).number).toBe(latest.number - 2n);
  });

  it("lagLogs: logs of the newest blocks are missing (and their block unknown by hash) until the head moves on; heads are not lagged", async () => {
    const { to, blockNumber, blockHash } = await realTransfer();
    await proxy.setFaults({ lagLogs: { blocks: 3 } });
    const filter = { address: rail.tokens.usdt.address, event: TRANSFER, args: { to }, fromBlock: blockNumber, toBlock: "latest" } as const;
    expect(await direct.getLogs(filter)).toHaveLength(1);
    expect(await client.getLogs(filter)).toEqual([]);
    expect(await client.getBlockNumber()).toBe(await direct.getBlockNumber());
    expect((await client.getBlock({ blockTag: "latest" })).hash).toBe(blockHash);
    const byHash = await raw(proxy.url, call("eth_getLogs", [{ blockHash }]));
    expect(byHash.body.error).toMatchObject({ code: -32000, message: "unknown block" });

    await mineBlocks(rail, 2);
    expect(await client.getLogs(filter)).toEqual([]);
    await mineBlocks(rail, 1);
    const seen = await client.getLogs(filter);
    expect(seen).toHaveLength(1);
    expect(seen).toEqual(await direct.getLogs(filter));
    const nowByHash = await raw(proxy.url, call("eth_getLogs", [{ blockHash }]));
    expect(nowByHash.body.result).toEqual((await raw(rail.chain.url, call("eth_getLogs", [{ blockHash }]))).body.result);
  });

  it("duplicateLogs: every log of an answer appears twice", async () => {
    const { to, blockNumber } = await realTransfer();
    await proxy.setFaults({ duplicateLogs: true });
    const filter = { address: rail.tokens.usdt.address, event: TRANSFER, args: { to }, fromBlock: blockNumber, toBlock: blockNumber } as const;
    const [real] = await direct.getLogs(filter);
    expect(await client.getLogs(filter)).toEqual([real, real]);
  });

  it("inventLogs: a Transfer log of the real token, in a real block with its real hash, of a transaction that does not exist", async () => {
    const { hash: realHash, blockNumber: realBlock } = await realTransfer();
    const usdt = rail.tokens.usdt.address;
    const to = freshAddress();
    const value = parseUnits("9.99", rail.tokens.usdt.decimals);
    await proxy.setFaults({ inventLogs: [{ contract: usdt, from: chains.payer.address, to, value: value.toString() }] });
    await mineBlocks(rail, 2);
    const head = await direct.getBlockNumber();
    const filter = { address: usdt, event: TRANSFER, args: { to }, fromBlock: realBlock, toBlock: head } as const;
    expect(await direct.getLogs(filter)).toEqual([]);

    const [invented, ...more] = await client.getLogs(filter);
    expect(more).toEqual([]);
    expect(invented).toMatchObject({ address: usdt.toLowerCase(), blockNumber: head, logIndex: 0x7fff, removed: false, args: { from: chains.payer.address, to, value } });
    expect(invented!.blockHash).toBe((await direct.getBlock({ blockNumber: head })).hash);
    expect(invented!.topics[0]).toBe(TRANSFER_TOPIC);
    // The same fake on the next read, and nowhere on the chain.
    expect((await client.getLogs(filter))[0]!.transactionHash).toBe(invented!.transactionHash);
    expect((await raw(proxy.url, call("eth_getTransactionReceipt", [invented!.transactionHash]))).body.result).toBeNull();
    expect(await direct.getTransaction({ hash: invented!.transactionHash }).catch(() => null)).toBeNull();
    expect(await client.readContract({ address: usdt, abi: erc20Abi, functionName: "balanceOf", args: [to] })).toBe(0n);

    // Shaped exactly like a real entry.
    const realEntry = (await raw(rail.chain.url, call("eth_getLogs", [{ blockHash: (await direct.getTransactionReceipt({ hash: realHash })).blockHash }]))).body.result[0];
    const fakeEntry = (await raw(proxy.url, call("eth_getLogs", [{ fromBlock: `0x${head.toString(16)}`, toBlock: "latest", address: [usdt] }]))).body.result[0];
    expect(Object.keys(fakeEntry)).toEqual(Object.keys(realEntry));
    expect(fakeEntry.transactionIndex).toMatch(/^0x[0-9a-f]+$/);

    // By default in the highest block a request covers; only where its address and topics filters cover it.
    expect((await client.getLogs({ ...filter, toBlock: head - 1n }))[0]).toMatchObject({ blockNumber: head - 1n, blockHash: (await direct.getBlock({ blockNumber: head - 1n })).hash });
    expect(await client.getLogs({ ...filter, address: rail.tokens.usdc.address })).toEqual([]);
    expect(await client.getLogs({ ...filter, args: { to: freshAddress() } })).toEqual([]);

    // In a given block, at a given index, and only for a range that covers that block.
    await proxy.setFaults({ inventLogs: [{ contract: usdt, from: chains.payer.address, to, value: "1", blockNumber: Number(realBlock), logIndex: 3 }] });
    const [placed] = await client.getLogs(filter);
    expect(placed).toMatchObject({ blockNumber: realBlock, blockHash: (await direct.getBlock({ blockNumber: realBlock })).hash, logIndex: 3, args: { value: 1n } });
    expect(await client.getLogs({ ...filter, fromBlock: realBlock + 1n })).toEqual([]);
    expect(await client.getLogs({ ...filter, fromBlock: realBlock - 1n, toBlock: realBlock - 1n })).toEqual([]);
    expect(await client.getLogs({ ...filter, fromBlock: undefined, toBlock: undefined, blockHash: placed!.blockHash })).toEqual([placed]);
  });

  it("tamperReceipts: missing, in another block, another value, failed", async () => {
    const { hash } = await realTransfer("3");
    const real = await direct.getTransactionReceipt({ hash });
    const transferValue = (receipt: typeof real) => {
      const log = receipt.logs.find((l) => l.topics[0] === TRANSFER_TOPIC)!;
      return decodeEventLog({ abi: [TRANSFER], data: log.data, topics: log.topics }).args.value;
    };

    await proxy.setFaults({ tamperReceipts: "missing" });
    expect((await raw(proxy.url, call("eth_getTransactionReceipt", [hash]))).body.result).toBeNull();
    expect(await failure(client.getTransactionReceipt({ hash }))).toBeInstanceOf(TransactionReceiptNotFoundError);

    await proxy.setFaults({ tamperReceipts: "otherBlockHash" });
    const moved = await client.getTransactionReceipt({ hash });
    expect(moved.blockHash).not.toBe(real.blockHash);
    expect(moved.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(moved.blockNumber).toBe(real.blockNumber);
    expect(moved.logs.map((l) => l.blockHash)).toEqual(real.logs.map(() => moved.blockHash));

    await proxy.setFaults({ tamperReceipts: "otherValue" });
    const inflated = await client.getTransactionReceipt({ hash });
    expect(transferValue(inflated)).toBe(transferValue(real) + 1n);
    expect(inflated.blockHash).toBe(real.blockHash);

    await proxy.setFaults({ tamperReceipts: "failed" });
    expect(real.status).toBe("success");
    expect((await client.getTransactionReceipt({ hash })).status).toBe("reverted");

    await proxy.setFaults({});
    expect(await client.getTransactionReceipt({ hash })).toEqual(real);
  });

  it("setUpstream: the same URL answers for another chain from the next request on", async () => {
    expect(await client.getChainId()).toBe(LOCAL_CHAIN_IDS.erc20);
    const other = chains.rails.bep20;
    await proxy.setUpstream(other.chain.url);
    expect(await client.getChainId()).toBe(LOCAL_CHAIN_IDS.bep20);
    expect((await client.getBlock({ blockNumber: 0n })).hash).toBe((await other.publicClient.getBlock({ blockNumber: 0n })).hash);
    await proxy.setUpstream(rail.chain.url);
    expect(await client.getChainId()).toBe(LOCAL_CHAIN_IDS.erc20);
  });
});

describe("rpc proxy process", () => {
  it("counts the JSON-RPC requests it answered per method, batch members one by one, faulted ones included", async () => {
    await proxy.stats({ reset: true });
    await client.getBlockNumber();
    await client.getBlockNumber();
    await raw(proxy.url, [call("eth_chainId", [], 1), call("eth_chainId", [], 2), call("eth_blockNumber", [], 3)]);
    await proxy.setFaults({ outage: true });
    await failure(client.getChainId());
    expect(await proxy.stats({ reset: true })).toEqual({ eth_blockNumber: 3, eth_chainId: 3 });
    expect(await proxy.stats()).toEqual({});
  });

  it("stop() ends the process; a proxy whose parent dies ends too", async () => {
    const own = await startRpcProxy({ upstream: rail.chain.url, faults: { duplicateLogs: true } });
    expect(alive(own.pid)).toBe(true);
    expect((await raw(own.url, call("eth_chainId"))).status).toBe(200);
    await own.stop();
    expect(alive(own.pid)).toBe(false);
    await expect(fetch(own.url)).rejects.toThrow();

    const fixture = fileURLToPath(new URL("./fixtures/proxy-parent.ts", import.meta.url));
    const parent = spawn(process.execPath, ["--import", "tsx", fixture, rail.chain.url], { stdio: ["ignore", "pipe", "inherit"] });
    const parentExited = new Promise<void>((resolve) => parent.once("exit", () => resolve()));
    try {
      const started = await new Promise<{ pid: number; url: string }>((resolve, reject) => {
        let out = "";
        parent.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString("utf8");
          if (out.includes("\n")) resolve(JSON.parse(out.slice(0, out.indexOf("\n"))) as { pid: number; url: string });
        });
        void parentExited.then(() => reject(new Error("the parent exited before its proxy started")));
      });
      expect((await raw(started.url, call("eth_chainId"))).status).toBe(200);
      parent.kill("SIGKILL");
      await parentExited;
      await waitFor(() => !alive(started.pid), "the orphaned proxy to exit");
      await expect(fetch(started.url)).rejects.toThrow();
    } finally {
      parent.kill("SIGKILL");
    }
  });
});
