import { createPublicClient, http, parseAbi, parseAbiItem, type Address, type Hex, type PublicClient } from "viem";

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

/**
 * The JSON-RPC calls the observer makes, nothing else: heads, blocks, Transfer
 * logs of given contracts over a block range, a token's decimals. Every call is
 * counted (`calls`), for the bench's calls per block.
 */
export interface ChainReader {
  readonly calls: number;
  chainId(): Promise<number>;
  headNumber(): Promise<bigint>;
  /** The chain's `finalized` block, or null where the endpoint serves none. */
  finalized(): Promise<BlockHeader | null>;
  block(number: bigint): Promise<BlockHeader>;
  /** Transfer logs of `contracts` in [from, to]; a range the endpoint refuses as too large is read in halves. */
  transferLogs(contracts: readonly Address[], from: bigint, to: bigint): Promise<TransferLog[]>;
  decimals(contract: Address): Promise<number>;
}

export const TRANSFER_EVENT = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
const DECIMALS_ABI = parseAbi(["function decimals() view returns (uint8)"]);

/** Answers of providers that cap a log query's range or result count. */
const RANGE_TOO_LARGE = /range|too many|limit|exceed|query returned more than|block range/i;

export interface EvmReaderOptions {
  url: string;
  /** Longest wait for one JSON-RPC answer (default 10 s). */
  timeoutMs?: number;
}

/** A ChainReader over viem's JSON-RPC client (no retries of its own: the observer's loop retries). */
export function evmReader(options: EvmReaderOptions): ChainReader {
  const client: PublicClient = createPublicClient({
    transport: http(options.url, { retryCount: 0, timeout: options.timeoutMs ?? 10_000 }),
    // viem answers getBlockNumber from a cache for its polling interval; the observer wants the chain's own answer.
    cacheTime: 0,
  });
  let calls = 0;
  const count = <T>(promise: Promise<T>): Promise<T> => {
    calls++;
    return promise;
  };
  const header = (block: { number: bigint | null; hash: Hex | null; parentHash: Hex; timestamp: bigint }): BlockHeader => {
    if (block.number === null || block.hash === null) throw new Error("the endpoint answered a pending block");
    return { number: block.number, hash: block.hash, parentHash: block.parentHash, timestamp: block.timestamp };
  };
  const logs = async (contracts: readonly Address[], from: bigint, to: bigint): Promise<TransferLog[]> => {
    try {
      const found = await count(client.getLogs({ address: [...contracts], event: TRANSFER_EVENT, fromBlock: from, toBlock: to, strict: true }));
      return found.map((log) => ({
        contract: log.address.toLowerCase() as Address,
        from: log.args.from.toLowerCase() as Address,
        to: log.args.to.toLowerCase() as Address,
        value: log.args.value,
        txHash: log.transactionHash,
        logIndex: log.logIndex,
        blockNumber: log.blockNumber,
        blockHash: log.blockHash,
      }));
    } catch (error) {
      if (to > from && RANGE_TOO_LARGE.test(String((error as Error).message))) {
        const middle = from + (to - from) / 2n;
        return [...(await logs(contracts, from, middle)), ...(await logs(contracts, middle + 1n, to))];
      }
      throw error;
    }
  };
  return {
    get calls() {
      return calls;
    },
    chainId: () => count(client.getChainId()),
    headNumber: () => count(client.getBlockNumber({ cacheTime: 0 })),
    finalized: async () => {
      try {
        return header(await count(client.getBlock({ blockTag: "finalized" })));
      } catch (error) {
        // Endpoints without the tag answer an error (unknown block tag) or nothing.
        if (/finalized|block tag|not found|invalid/i.test(String((error as Error).message))) return null;
        throw error;
      }
    },
    block: async (number) => header(await count(client.getBlock({ blockNumber: number }))),
    transferLogs: logs,
    decimals: async (contract) => Number(await count(client.readContract({ address: contract, abi: DECIMALS_ABI, functionName: "decimals" }))),
  };
}
