import { createHash } from "node:crypto";
import {
  BaseError,
  BlockNotFoundError,
  createPublicClient,
  http,
  parseAbi,
  parseAbiItem,
  TransactionReceiptNotFoundError,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import type { WitnessReceipt } from "../domain/observation/witness.js";

/** What the observer keeps of a block. */
export interface BlockHeader {
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  /** Seconds since the epoch, as the chain's block says. */
  timestamp: bigint;
}

/** An ERC-20 Transfer log; addresses in lower case. */
export interface TransferLog {
  contract: Address;
  from: Address;
  to: Address;
  value: bigint;
  txHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hex;
}

/** Who a chain is: its id and its block 0. */
export interface ChainIdentity {
  chainId: number;
  genesisHash: Hex;
}

/** An endpoint answered HTTP 429 (or said it is rate limiting): wait `retryAfterMs` before asking it again. */
export class RpcRateLimitedError extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`the endpoint is rate limiting; asking again in ${Math.ceil(retryAfterMs / 1000)} s`);
    this.name = "RpcRateLimitedError";
  }
}

/** The endpoint refused a log query's block range (or result count) as too large. */
export class RangeTooLargeError extends Error {
  constructor() {
    super("the endpoint refused the block range as too large");
    this.name = "RangeTooLargeError";
  }
}

/** The endpoint cannot answer the logs of a block it was asked for by hash (it has not seen that block). */
export class BlockUnknownError extends Error {
  constructor(readonly blockNumber: bigint) {
    super(`the endpoint does not know block ${blockNumber} yet`);
    this.name = "BlockUnknownError";
  }
}

/** An endpoint serves another chain than the rail's: its answers must not be used. */
export class ChainIdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChainIdentityError";
  }
}

/** No endpoint other than the reading one can be asked (none configured answers). */
export class WitnessUnavailableError extends Error {
  constructor(reason: string) {
    super(`no second endpoint can confirm transfers: ${reason}`);
    this.name = "WitnessUnavailableError";
  }
}

/** One endpoint's (or a second endpoint's) view, for confirming what another said. */
export interface ChainWitness {
  /** The endpoint's head. */
  headNumber(): Promise<bigint>;
  /** The hash the witness has at `number`, or null when it has no such block yet. */
  blockHash(number: bigint): Promise<Hex | null>;
  /** The witness's receipt of a transaction, or null when it has none. */
  receipt(txHash: Hex): Promise<WitnessReceipt | null>;
}

/**
 * The JSON-RPC calls the observer makes, nothing else: heads, blocks, Transfer
 * logs of given contracts, a token's decimals, receipts. Every call is counted
 * (`calls`), for the bench's calls per block. Reads fail over between the
 * rail's endpoints; each endpoint's chain identity is checked before its first
 * answer of every pass is used.
 */
export interface ChainReader {
  readonly calls: number;
  /** How many endpoints are configured. */
  readonly endpoints: number;
  /**
   * A stable id of each endpoint, in the configured order: a digest of its URL
   * (never the URL, which may hold an API key), the same across restarts, so a
   * transfer can record which endpoint reported it.
   */
  readonly endpointIds: readonly string[];
  /** The id of the endpoint reads go to now (it changes on a failover). */
  readonly current: string;
  /**
   * Starts a pass: from now on each endpoint's chain id and genesis are checked
   * again before its first answer is used (ChainIdentityError on a mismatch).
   * With no genesis yet known, the first endpoint asked defines it.
   */
  beginPass(expected: { chainId: number; genesisHash: Hex | undefined }): void;
  /** The identity of the endpoint now in use (checked as above). */
  identity(): Promise<ChainIdentity>;
  chainId(): Promise<number>;
  headNumber(): Promise<bigint>;
  /** The chain's `finalized` block, or null where the endpoint serves none. */
  finalized(): Promise<BlockHeader | null>;
  block(number: bigint): Promise<BlockHeader>;
  /** Transfer logs of `contracts` in [from, to]; RangeTooLargeError when the endpoint refuses the range. */
  transferLogs(contracts: readonly Address[], from: bigint, to: bigint): Promise<TransferLog[]>;
  /** Transfer logs of `contracts` in the block of that hash; BlockUnknownError when the endpoint has not seen it. */
  transferLogsAt(contracts: readonly Address[], block: { number: bigint; hash: Hex }): Promise<TransferLog[]>;
  /** The receipt of a transaction as the reading endpoint has it, or null. */
  receipt(txHash: Hex): Promise<WitnessReceipt | null>;
  decimals(contract: Address): Promise<number>;
  /**
   * A witness: the endpoints other than those of `exclude` (the one that
   * reported what is to be confirmed), asked in order after the one in use,
   * failing over among themselves; null when no other endpoint is configured.
   * WitnessUnavailableError when none of them can answer.
   */
  witness(exclude: readonly string[]): ChainWitness | null;
  /** One endpoint's own view, with no failover (its errors are thrown as they are); null when no endpoint has that id. */
  endpoint(id: string): ChainWitness | null;
  /** Checks every configured endpoint's chain identity now (ChainIdentityError on a mismatch; an endpoint that cannot be reached throws too). */
  verifyAll(): Promise<void>;
}

export const TRANSFER_EVENT = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
const DECIMALS_ABI = parseAbi(["function decimals() view returns (uint8)"]);

/** Answers of providers that cap a log query's range or result count. */
const RANGE_TOO_LARGE = /block range|range (is )?too (large|wide|big)|too many (blocks|results|logs)|query returned more than|exceeds? (the )?(max|limit)|limit exceeded|response size/i;
/** Answers of an endpoint that has not seen a block asked for by hash. */
const UNKNOWN_BLOCK = /unknown block|block not found|header not found|not found|missing block|no block|cannot find block|resource not found/i;
/** Answers that are rate limiting, whatever their HTTP status. */
const RATE_LIMITED = /rate limit|too many requests|request limit reached|capacity exceeded/i;

export interface EvmReaderOptions {
  /** The endpoints in order of preference (one or more). */
  urls: readonly string[];
  /** Longest wait for one JSON-RPC answer (default 10 s). */
  timeoutMs?: number;
  /** Wait after a 429 without a usable Retry-After (default 5 s). */
  defaultRetryAfterMs?: number;
  now?: () => number;
}

/** How a failed call is handled. */
type Failure =
  /** The endpoint cannot be reached or failed as a server (connection, timeout, 5xx): try the next. */
  | { kind: "down" }
  | { kind: "rate-limited"; retryAfterMs: number }
  /** The endpoint answered a JSON-RPC error: an answer, not an outage. */
  | { kind: "answer" };

function statusOf(error: unknown): number | undefined {
  let status: number | undefined;
  if (error instanceof BaseError) {
    error.walk((e) => {
      const s = (e as { status?: unknown }).status;
      if (typeof s === "number") status = s;
      return false;
    });
  }
  return status;
}

function headersOf(error: unknown): Headers | undefined {
  let headers: Headers | undefined;
  if (error instanceof BaseError) {
    error.walk((e) => {
      const h = (e as { headers?: unknown }).headers;
      if (h instanceof Headers) headers = h;
      return false;
    });
  }
  return headers;
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or undefined. */
export function retryAfterMs(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function classify(error: unknown, now: number, fallbackRetryMs: number): Failure {
  const status = statusOf(error);
  const text = error instanceof BaseError ? `${error.shortMessage} ${error.details}` : String((error as Error)?.message ?? error);
  if (status === 429 || RATE_LIMITED.test(text)) {
    return { kind: "rate-limited", retryAfterMs: retryAfterMs(headersOf(error)?.get("retry-after"), now) ?? fallbackRetryMs };
  }
  let rpcAnswer = false;
  if (error instanceof BaseError) error.walk((e) => (rpcAnswer ||= (e as BaseError).name === "RpcRequestError" && (status === undefined || status < 500)));
  if (rpcAnswer) return { kind: "answer" };
  return { kind: "down" };
}

interface Endpoint {
  index: number;
  id: string;
  client: PublicClient;
  /** Until when it is rested after a 429 (epoch ms). */
  restingUntil: number;
  /** The pass in which its identity was last checked. */
  checkedInPass: number;
}

const header = (block: { number: bigint | null; hash: Hex | null; parentHash: Hex; timestamp: bigint }): BlockHeader => {
  if (block.number === null || block.hash === null) throw new Error("the endpoint answered a pending block");
  return { number: block.number, hash: block.hash, parentHash: block.parentHash, timestamp: block.timestamp };
};

function toTransferLog(log: {
  address: Address;
  args: { from: Address; to: Address; value: bigint };
  transactionHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hex;
}): TransferLog {
  return {
    contract: log.address.toLowerCase() as Address,
    from: log.args.from.toLowerCase() as Address,
    to: log.args.to.toLowerCase() as Address,
    value: log.args.value,
    txHash: log.transactionHash,
    logIndex: log.logIndex,
    blockNumber: log.blockNumber,
    blockHash: log.blockHash,
  };
}

/**
 * A ChainReader over viem's JSON-RPC clients, one per endpoint, with no
 * retries of their own: a call goes to the endpoint in use and, when that one
 * is down or rate limiting, to the next (the observer's loop retries the
 * pass). An endpoint that answered 429 rests for its Retry-After.
 */
export function evmReader(options: EvmReaderOptions): ChainReader {
  if (options.urls.length === 0) throw new Error("a chain reader needs at least one endpoint");
  const now = options.now ?? Date.now;
  const fallbackRetryMs = options.defaultRetryAfterMs ?? 5_000;
  const endpoints: Endpoint[] = options.urls.map((url, index) => ({
    index,
    id: endpointId(url),
    client: createPublicClient({
      transport: http(url, { retryCount: 0, timeout: options.timeoutMs ?? 10_000 }),
      // viem answers getBlockNumber from a cache for its polling interval; the observer wants the chain's own answer.
      cacheTime: 0,
    }),
    restingUntil: 0,
    checkedInPass: -1,
  }));
  let calls = 0;
  let current = 0;
  let pass = 0;
  let expected: { chainId: number; genesisHash: Hex | undefined } | undefined;

  const identityOf = async (endpoint: Endpoint): Promise<ChainIdentity> => {
    calls += 2;
    const [chainId, genesis] = await Promise.all([endpoint.client.getChainId(), endpoint.client.getBlock({ blockNumber: 0n })]);
    if (genesis.hash === null) throw new Error("the endpoint answered a pending genesis block");
    return { chainId, genesisHash: genesis.hash };
  };

  /** Checks an endpoint's identity once per pass, before its first answer is used. */
  const verify = async (endpoint: Endpoint): Promise<void> => {
    if (!expected || endpoint.checkedInPass === pass) return;
    const seen = await identityOf(endpoint);
    const which = endpoints.length > 1 ? `endpoint ${endpoint.index + 1}` : "the endpoint";
    if (seen.chainId !== expected.chainId) throw new ChainIdentityError(`${which} serves chain ${seen.chainId}, not the configured ${expected.chainId}`);
    expected.genesisHash ??= seen.genesisHash;
    if (seen.genesisHash.toLowerCase() !== expected.genesisHash.toLowerCase()) {
      throw new ChainIdentityError(`${which} serves a chain whose genesis block is ${seen.genesisHash}, not ${expected.genesisHash} (another chain under the same id)`);
    }
    endpoint.checkedInPass = pass;
  };

  /**
   * Runs `call` on the endpoint in use, failing over in order to the others
   * (except those of `exclude`) while one is down or rate limiting. Throws the
   * JSON-RPC answer of an endpoint as it is, or, when none could answer,
   * RpcRateLimitedError if one was rate limiting, else the last failure.
   */
  const run = async <T>(call: (client: PublicClient) => Promise<T>, exclude: readonly string[] = [], start = current): Promise<{ value: T; endpoint: number }> => {
    let lastError: unknown;
    let shortestRest: number | undefined;
    for (let step = 0; step < endpoints.length; step++) {
      const endpoint = endpoints[(start + step) % endpoints.length]!;
      if (exclude.includes(endpoint.id)) continue;
      const waitMs = endpoint.restingUntil - now();
      if (waitMs > 0) {
        shortestRest = Math.min(shortestRest ?? waitMs, waitMs);
        continue;
      }
      try {
        await verify(endpoint);
        calls++;
        const value = await call(endpoint.client);
        return { value, endpoint: endpoint.index };
      } catch (error) {
        if (error instanceof ChainIdentityError) throw error;
        const failure = classify(error, now(), fallbackRetryMs);
        if (failure.kind === "answer") throw error;
        lastError = error;
        if (failure.kind === "rate-limited") {
          endpoint.restingUntil = now() + failure.retryAfterMs;
          shortestRest = Math.min(shortestRest ?? failure.retryAfterMs, failure.retryAfterMs);
        }
      }
    }
    if (shortestRest !== undefined && (lastError === undefined || classify(lastError, now(), fallbackRetryMs).kind === "rate-limited")) {
      throw new RpcRateLimitedError(shortestRest);
    }
    throw lastError ?? new WitnessUnavailableError("every other endpoint is resting after a 429");
  };

  /** A call on the reading endpoint; a failover makes the endpoint that answered the one in use. */
  const read = async <T>(call: (client: PublicClient) => Promise<T>): Promise<T> => {
    const { value, endpoint } = await run(call);
    current = endpoint;
    return value;
  };

  const logsOf = (client: PublicClient, contracts: readonly Address[], filter: { fromBlock: bigint; toBlock: bigint } | { blockHash: Hex }) =>
    client.getLogs({ address: [...contracts], event: TRANSFER_EVENT, strict: true, ...filter });

  const receiptOn = async (client: PublicClient, txHash: Hex): Promise<WitnessReceipt | null> => {
    try {
      const receipt = await client.getTransactionReceipt({ hash: txHash });
      return {
        status: receipt.status,
        blockHash: receipt.blockHash,
        blockNumber: receipt.blockNumber,
        logs: receipt.logs.map((log) => ({ logIndex: log.logIndex, address: log.address, topics: log.topics, data: log.data })),
      };
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) return null;
      throw error;
    }
  };

  const blockHashOn = async (client: PublicClient, number: bigint): Promise<Hex | null> => {
    try {
      return (await client.getBlock({ blockNumber: number })).hash;
    } catch (error) {
      if (error instanceof BlockNotFoundError) return null;
      throw error;
    }
  };

  return {
    get calls() {
      return calls;
    },
    endpoints: endpoints.length,
    endpointIds: endpoints.map((e) => e.id),
    get current() {
      return endpoints[current]!.id;
    },
    beginPass(next) {
      pass++;
      expected = { ...next };
    },
    identity: async () => {
      const endpoint = endpoints[current]!;
      if (expected) {
        // Reading through `read` checks the endpoint (and fails over); the identity is then what was checked.
        await read(async () => undefined);
        return { chainId: expected.chainId, genesisHash: expected.genesisHash! };
      }
      return identityOf(endpoint);
    },
    chainId: () => read((c) => c.getChainId()),
    headNumber: () => read((c) => c.getBlockNumber({ cacheTime: 0 })),
    finalized: async () => {
      try {
        return header(await read((c) => c.getBlock({ blockTag: "finalized" })));
      } catch (error) {
        // Endpoints without the tag answer an error (unknown block tag) or nothing.
        if (error instanceof BlockNotFoundError) return null;
        if (classify(error, now(), fallbackRetryMs).kind === "answer" && /finalized|block tag|not found|invalid|unknown block/i.test(String((error as Error).message))) return null;
        throw error;
      }
    },
    block: async (number) => header(await read((c) => c.getBlock({ blockNumber: number }))),
    transferLogs: async (contracts, from, to) => {
      try {
        return (await read((c) => logsOf(c, contracts, { fromBlock: from, toBlock: to }))).map(toTransferLog);
      } catch (error) {
        if (classify(error, now(), fallbackRetryMs).kind === "answer" && RANGE_TOO_LARGE.test(error instanceof BaseError ? `${error.shortMessage} ${error.details}` : String(error))) {
          throw new RangeTooLargeError();
        }
        throw error;
      }
    },
    transferLogsAt: async (contracts, block) => {
      try {
        return (await read((c) => logsOf(c, contracts, { blockHash: block.hash }))).map(toTransferLog);
      } catch (error) {
        // EIP-234: an endpoint that has not seen the block answers an error, never an empty list. Any other answer is the endpoint's problem, told as it is.
        const text = error instanceof BaseError ? `${error.shortMessage} ${error.details}` : String(error);
        if (classify(error, now(), fallbackRetryMs).kind === "answer" && UNKNOWN_BLOCK.test(text)) throw new BlockUnknownError(block.number);
        throw error;
      }
    },
    receipt: (txHash) => read((c) => receiptOn(c, txHash)),
    decimals: (contract) => read(async (c) => Number(await c.readContract({ address: contract, abi: DECIMALS_ABI, functionName: "decimals" }))),
    witness: (exclude) => {
      if (endpoints.every((e) => exclude.includes(e.id))) return null;
      const ask = async <T>(call: (client: PublicClient) => Promise<T>): Promise<T> => {
        try {
          return (await run(call, exclude, (current + 1) % endpoints.length)).value;
        } catch (error) {
          if (error instanceof ChainIdentityError) throw error;
          if (classify(error, now(), fallbackRetryMs).kind === "answer") throw error;
          throw new WitnessUnavailableError(error instanceof RpcRateLimitedError ? error.message : "every other endpoint is down");
        }
      };
      return {
        headNumber: () => ask((c) => c.getBlockNumber({ cacheTime: 0 })),
        blockHash: (number) => ask((c) => blockHashOn(c, number)),
        receipt: (txHash) => ask((c) => receiptOn(c, txHash)),
      };
    },
    endpoint: (id) => {
      const endpoint = endpoints.find((e) => e.id === id);
      if (!endpoint) return null;
      const ask = async <T>(call: (client: PublicClient) => Promise<T>): Promise<T> => {
        await verify(endpoint);
        calls++;
        return call(endpoint.client);
      };
      return {
        headNumber: () => ask((c) => c.getBlockNumber({ cacheTime: 0 })),
        blockHash: (number) => ask((c) => blockHashOn(c, number)),
        receipt: (txHash) => ask((c) => receiptOn(c, txHash)),
      };
    },
    verifyAll: async () => {
      for (const endpoint of endpoints) await verify(endpoint);
    },
  };
}

/** An endpoint's stable id: the first 16 hex digits of the SHA-256 of its URL (the URL itself may hold an API key). */
export function endpointId(url: string): string {
  return createHash("sha256").update(url).digest("hex").slice(0, 16);
}
