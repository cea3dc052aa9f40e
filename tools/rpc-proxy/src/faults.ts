/** One invented ERC-20 Transfer log (see ProxyFaults.inventLogs). */
export interface InventedLog {
  /** The token contract the log claims to come from (the real one, for a convincing fake). */
  contract: string;
  from: string;
  to: string;
  /** Decimal base units. */
  value: string;
  /** Default: the highest block the request covers. */
  blockNumber?: number;
  /** Default 0x7fff. */
  logIndex?: number;
}

/** The faults the proxy injects; several may be active at once. */
export interface ProxyFaults {
  /** Every request fails: the proxy answers HTTP 503 (an outage). */
  outage?: boolean;
  /** The next `count` requests get HTTP 429 with `Retry-After: <retryAfterS>` and a JSON-RPC error body, then normal service resumes. */
  rateLimit?: { count: number; retryAfterS: number };
  /** `eth_getBlockByNumber("finalized")` (and "safe") answers the latest block instead. */
  finalizedIsLatest?: boolean;
  /**
   * eth_getLogs answers as a backend `blocks` behind: logs of blocks above (upstream head − blocks)
   * are left out of the answer (silently, the answer is otherwise normal); eth_getLogs by blockHash
   * for such a block answers a JSON-RPC error (code -32000, "unknown block");
   * eth_getBlockByNumber/eth_blockNumber are NOT lagged (another backend answers those).
   */
  lagLogs?: { blocks: number };
  /** Every log in an eth_getLogs answer appears twice. */
  duplicateLogs?: boolean;
  /**
   * eth_getLogs over a block range wider than `blocks` answers the JSON-RPC error a capped provider
   * gives (code -32005, "exceed maximum block range: <blocks>"), as BSC's public endpoints do.
   */
  maxLogRange?: { blocks: number };
  /**
   * eth_getLogs answers gain invented Transfer logs: for each item, a log of `contract`, topics
   * Transfer(from, to), data = value (uint256), in the block `blockNumber` (default: the highest
   * block the request covers) with that block's real hash, a never-mined transactionHash (one per
   * item, kept until the faults are replaced), logIndex 0x7fff (or as given); only when the
   * request's range, address and topics filters cover it. eth_getTransactionReceipt of that
   * invented hash is passed through (so the upstream answers null).
   */
  inventLogs?: InventedLog[];
  /**
   * eth_getTransactionReceipt answers are altered: "missing" → result null; "otherBlockHash" →
   * blockHash (and each log's blockHash) replaced by a random hash; "otherValue" → each Transfer
   * log's data set to value+1; "failed" → status "0x0".
   */
  tamperReceipts?: "missing" | "otherBlockHash" | "otherValue" | "failed";
}

const FAULT_KEYS = new Set(["outage", "rateLimit", "finalizedIsLatest", "lagLogs", "duplicateLogs", "maxLogRange", "inventLogs", "tamperReceipts"]);
const TAMPERINGS = new Set(["missing", "otherBlockHash", "otherValue", "failed"]);
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const UINT256_MAX = (1n << 256n) - 1n;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function wholeNumber(value: unknown, max = Number.MAX_SAFE_INTEGER): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 && value <= max;
}

/** Checks a faults object as the control channel receives it; answers the faults or throws a message naming the first bad field. */
export function parseFaults(input: unknown): ProxyFaults {
  if (!isRecord(input)) throw new Error("faults must be a JSON object");
  for (const key of Object.keys(input)) if (!FAULT_KEYS.has(key)) throw new Error(`unknown fault "${key}"`);
  const { outage, rateLimit, finalizedIsLatest, lagLogs, duplicateLogs, maxLogRange, inventLogs, tamperReceipts } = input;
  for (const [name, flag] of [
    ["outage", outage],
    ["finalizedIsLatest", finalizedIsLatest],
    ["duplicateLogs", duplicateLogs],
  ] as const) {
    if (flag !== undefined && typeof flag !== "boolean") throw new Error(`${name} must be a boolean`);
  }
  if (rateLimit !== undefined && !(isRecord(rateLimit) && wholeNumber(rateLimit.count) && wholeNumber(rateLimit.retryAfterS))) {
    throw new Error("rateLimit must be { count, retryAfterS } with whole numbers >= 0");
  }
  if (lagLogs !== undefined && !(isRecord(lagLogs) && wholeNumber(lagLogs.blocks))) throw new Error("lagLogs must be { blocks } with a whole number >= 0");
  if (maxLogRange !== undefined && !(isRecord(maxLogRange) && wholeNumber(maxLogRange.blocks) && maxLogRange.blocks >= 1)) {
    throw new Error("maxLogRange must be { blocks } with a whole number >= 1");
  }
  if (tamperReceipts !== undefined && !(typeof tamperReceipts === "string" && TAMPERINGS.has(tamperReceipts))) {
    throw new Error(`tamperReceipts must be one of ${[...TAMPERINGS].join(", ")}`);
  }
  if (inventLogs !== undefined) {
    if (!Array.isArray(inventLogs)) throw new Error("inventLogs must be an array");
    inventLogs.forEach((item: unknown, i) => {
      if (!isRecord(item)) throw new Error(`inventLogs[${i}] must be an object`);
      for (const field of ["contract", "from", "to"] as const) {
        if (typeof item[field] !== "string" || !ADDRESS.test(item[field])) throw new Error(`inventLogs[${i}].${field} must be a 0x address of 40 hex digits`);
      }
      if (typeof item.value !== "string" || !/^\d{1,78}$/.test(item.value) || BigInt(item.value) > UINT256_MAX) {
        throw new Error(`inventLogs[${i}].value must be a decimal uint256 (base units)`);
      }
      if (item.blockNumber !== undefined && !wholeNumber(item.blockNumber)) throw new Error(`inventLogs[${i}].blockNumber must be a whole number >= 0`);
      if (item.logIndex !== undefined && !wholeNumber(item.logIndex, 0xffffffff)) throw new Error(`inventLogs[${i}].logIndex must be a whole number >= 0`);
    });
  }
  return input as ProxyFaults;
}
