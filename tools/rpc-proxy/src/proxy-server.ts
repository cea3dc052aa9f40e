import { randomBytes } from "node:crypto";
import http from "node:http";
import { parseFaults, type InventedLog, type ProxyFaults } from "./faults.js";

/** topic0 of ERC-20 `Transfer(address,address,uint256)`. */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

type Json = unknown;

interface RpcCall {
  jsonrpc?: string;
  id?: Json;
  method?: Json;
  params?: Json;
}

interface RpcAnswer {
  jsonrpc: string;
  id: Json;
  result?: Json;
  error?: { code: number; message: string; data?: Json };
}

interface RpcLog {
  address: string;
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  blockTimestamp?: string;
  transactionHash: string;
  transactionIndex: string;
  logIndex: string;
  removed: boolean;
}

interface RpcBlock {
  number: string;
  hash: string;
  timestamp: string;
}

interface LogFilter {
  fromBlock?: Json;
  toBlock?: Json;
  blockHash?: Json;
  address?: Json;
  topics?: Json;
}

/** The proxy's state, changed through its control channel. */
interface ProxyState {
  upstream: string;
  faults: ProxyFaults;
  /** 429 answers left of the current rateLimit fault. */
  rateLimitLeft: number;
  /** One never-mined transaction hash per inventLogs item, kept until the faults are replaced. */
  inventedHashes: string[];
  stats: Map<string, number>;
}

/** Upstream answered with a transport failure (nothing listening, connection reset): the proxy answers 502. */
class UpstreamUnreachable extends Error {}

const randomHash = (): string => `0x${randomBytes(32).toString("hex")}`;
const hex = (n: bigint | number): string => `0x${n.toString(16)}`;
const word = (n: bigint): string => `0x${n.toString(16).padStart(64, "0")}`;
const topicOf = (address: string): string => `0x${address.slice(2).toLowerCase().padStart(64, "0")}`;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The JSON-RPC proxy's HTTP server: `POST /` forwards JSON-RPC (single and batch) to the
 * upstream and applies the active faults; `/__proxy/faults`, `/__proxy/upstream` and
 * `/__proxy/stats` are its control channel.
 */
export function createProxyServer(options: { upstream: string; faults?: ProxyFaults }): http.Server {
  const state: ProxyState = { upstream: options.upstream, faults: {}, rateLimitLeft: 0, inventedHashes: [], stats: new Map() };
  setFaults(state, options.faults ?? {});
  return http.createServer((req, res) => {
    void handle(state, req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { error: { code: "proxy_error", message: String((error as Error)?.message ?? error) } });
      else res.destroy();
    });
  });
}

function setFaults(state: ProxyState, faults: ProxyFaults): void {
  state.faults = faults;
  state.rateLimitLeft = faults.rateLimit?.count ?? 0;
  state.inventedHashes = (faults.inventLogs ?? []).map(() => randomHash());
}

async function handle(state: ProxyState, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://proxy");
  const body = await readBody(req);
  if (url.pathname === "/" && req.method === "POST") return handleRpc(state, body, res);
  if (url.pathname === "/__proxy/faults" && req.method === "POST") {
    let faults: ProxyFaults;
    try {
      faults = parseFaults(JSON.parse(body.toString("utf8") || "null"));
    } catch (error) {
      return send(res, 400, { error: { code: "bad_faults", message: (error as Error).message } });
    }
    setFaults(state, faults);
    return send(res, 200, { faults });
  }
  if (url.pathname === "/__proxy/upstream" && req.method === "POST") {
    let upstream: string | undefined;
    try {
      const parsed = JSON.parse(body.toString("utf8")) as unknown;
      if (isRecord(parsed) && typeof parsed.url === "string" && /^https?:$/.test(new URL(parsed.url).protocol)) upstream = parsed.url;
    } catch {
      // answered below
    }
    if (!upstream) return send(res, 400, { error: { code: "bad_upstream", message: 'the body must be {"url": "http(s)://…"}' } });
    state.upstream = upstream;
    return send(res, 200, { upstream });
  }
  if (url.pathname === "/__proxy/stats" && req.method === "GET") {
    const stats = Object.fromEntries(state.stats);
    if (url.searchParams.get("reset") === "1") state.stats.clear();
    return send(res, 200, stats);
  }
  return send(res, 404, { error: { code: "not_found", message: `no ${req.method} ${url.pathname} here: JSON-RPC is POST /` } });
}

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: http.ServerResponse, status: number, body: Json, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The calls of a JSON-RPC request body (a batch's members, or the one call), or null when it is not JSON-RPC. */
function callsOf(parsed: unknown): RpcCall[] | null {
  if (Array.isArray(parsed)) return parsed.filter(isRecord) as RpcCall[];
  return isRecord(parsed) ? [parsed as RpcCall] : null;
}

async function handleRpc(state: ProxyState, body: Buffer, res: http.ServerResponse): Promise<void> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const calls = callsOf(parsed) ?? [];
  for (const call of calls) {
    const method = typeof call.method === "string" ? call.method : "(no method)";
    state.stats.set(method, (state.stats.get(method) ?? 0) + 1);
  }
  const faults = state.faults;
  if (faults.outage) {
    res.writeHead(503, { "content-type": "text/plain" });
    res.end("503 Service Unavailable: the upstream is down (rpc-proxy outage fault)\n");
    return;
  }
  if (state.rateLimitLeft > 0) {
    state.rateLimitLeft--;
    const error = (id: Json): RpcAnswer => ({ jsonrpc: "2.0", id: id ?? null, error: { code: -32005, message: "Too many requests: request rate limit exceeded" } });
    const answer = Array.isArray(parsed) ? calls.map((c) => error(c.id)) : error(calls[0]?.id);
    return send(res, 429, answer, { "retry-after": String(faults.rateLimit?.retryAfterS ?? 1) });
  }
  const upstream = state.upstream;
  // Pre-processing: a request rewritten before it leaves (finalizedIsLatest).
  let forwarded: Buffer = body;
  if (faults.finalizedIsLatest && calls.some(asksFinalized)) {
    const rewrite = (call: RpcCall): RpcCall => (asksFinalized(call) ? { ...call, params: ["latest", ...(call.params as Json[]).slice(1)] } : call);
    forwarded = Buffer.from(JSON.stringify(Array.isArray(parsed) ? (parsed as Json[]).map((c) => (isRecord(c) ? rewrite(c) : c)) : rewrite(parsed as RpcCall)));
  }
  let answer: { status: number; contentType: string; body: Buffer };
  try {
    answer = await post(upstream, forwarded);
  } catch (error) {
    if (!(error instanceof UpstreamUnreachable)) throw error;
    return send(res, 502, { error: { code: "upstream_unreachable", message: error.message } });
  }
  // Post-processing: answers altered after they come back (logs, receipts).
  const altered = answer.status === 200 && calls.some((call) => altersAnswer(faults, call));
  if (!altered) {
    res.writeHead(answer.status, { "content-type": answer.contentType, "content-length": answer.body.length });
    res.end(answer.body);
    return;
  }
  let answers: unknown;
  try {
    answers = JSON.parse(answer.body.toString("utf8"));
  } catch {
    res.writeHead(answer.status, { "content-type": answer.contentType });
    res.end(answer.body);
    return;
  }
  const byId = new Map(calls.map((call) => [JSON.stringify(call.id ?? null), call]));
  const context = new UpstreamContext(upstream, faults);
  const alter = async (item: unknown): Promise<unknown> => {
    if (!isRecord(item)) return item;
    const call = byId.get(JSON.stringify(item.id ?? null));
    return call && altersAnswer(faults, call) ? alterAnswer(state, faults, call, item as unknown as RpcAnswer, context) : item;
  };
  let result: unknown;
  try {
    result = Array.isArray(answers) ? await Promise.all(answers.map(alter)) : await alter(answers);
  } catch (error) {
    if (!(error instanceof UpstreamUnreachable)) throw error;
    return send(res, 502, { error: { code: "upstream_unreachable", message: error.message } });
  }
  send(res, 200, result);
}

function asksFinalized(call: RpcCall): boolean {
  return call.method === "eth_getBlockByNumber" && Array.isArray(call.params) && (call.params[0] === "finalized" || call.params[0] === "safe");
}

function altersAnswer(faults: ProxyFaults, call: RpcCall): boolean {
  if (call.method === "eth_getLogs") return Boolean(faults.lagLogs || faults.duplicateLogs || faults.maxLogRange || faults.inventLogs?.length);
  if (call.method === "eth_getTransactionReceipt") return faults.tamperReceipts !== undefined;
  return false;
}

async function post(upstream: string, body: Buffer): Promise<{ status: number; contentType: string; body: Buffer }> {
  let response: Response;
  try {
    response = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body });
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new UpstreamUnreachable(`${upstream}: ${cause ?? (error as Error).message}`);
  }
  return { status: response.status, contentType: response.headers.get("content-type") ?? "application/json", body: Buffer.from(await response.arrayBuffer()) };
}

/** The upstream's head and blocks as the altering of one request's answers needs them, each asked once. */
class UpstreamContext {
  private headNumber?: Promise<bigint>;
  private readonly blocks = new Map<string, Promise<RpcBlock | null>>();

  constructor(
    private readonly upstream: string,
    private readonly faults: ProxyFaults,
  ) {}

  async call(method: string, params: Json[]): Promise<Json> {
    const answer = await post(this.upstream, Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })));
    const parsed = JSON.parse(answer.body.toString("utf8")) as RpcAnswer;
    if (parsed.error) throw new Error(`upstream ${method}: ${parsed.error.message}`);
    return parsed.result;
  }

  head(): Promise<bigint> {
    this.headNumber ??= this.call("eth_blockNumber", []).then((n) => BigInt(n as string));
    return this.headNumber;
  }

  /** A block by number, hash or tag; null when the upstream has none. */
  block(key: bigint | string): Promise<RpcBlock | null> {
    const id = String(key);
    let block = this.blocks.get(id);
    if (!block) {
      block =
        typeof key === "string" && key.length === 66
          ? (this.call("eth_getBlockByHash", [key, false]) as Promise<RpcBlock | null>)
          : (this.call("eth_getBlockByNumber", [typeof key === "bigint" ? hex(key) : key, false]) as Promise<RpcBlock | null>);
      this.blocks.set(id, block);
    }
    return block;
  }

  /** A filter's block (a number or a tag) as a number; null for a tag the upstream does not serve. */
  async blockNumber(tag: Json): Promise<bigint | null> {
    if (tag === undefined || tag === null || tag === "latest" || tag === "pending") return this.head();
    if (tag === "earliest") return 0n;
    if (tag === "finalized" || tag === "safe") {
      if (this.faults.finalizedIsLatest) return this.head();
      const block = await this.block(tag).catch(() => null);
      return block ? BigInt(block.number) : null;
    }
    if (typeof tag === "number" || (typeof tag === "string" && /^0x[0-9a-fA-F]+$/.test(tag))) return BigInt(tag);
    return null;
  }
}

async function alterAnswer(state: ProxyState, faults: ProxyFaults, call: RpcCall, answer: RpcAnswer, context: UpstreamContext): Promise<RpcAnswer> {
  if (answer.error) return answer;
  if (call.method === "eth_getTransactionReceipt") return { ...answer, result: tamperReceipt(faults.tamperReceipts, answer.result) };
  if (!Array.isArray(answer.result)) return answer;
  const filter: LogFilter = Array.isArray(call.params) && isRecord(call.params[0]) ? call.params[0] : {};
  if (faults.maxLogRange && typeof filter.blockHash !== "string") {
    const [from, to] = await Promise.all([context.blockNumber(filter.fromBlock), context.blockNumber(filter.toBlock)]);
    if (from !== null && to !== null && to - from + 1n > BigInt(faults.maxLogRange.blocks)) {
      return { jsonrpc: answer.jsonrpc, id: answer.id, error: { code: -32005, message: `exceed maximum block range: ${faults.maxLogRange.blocks}` } };
    }
  }
  let logs = answer.result as RpcLog[];
  const invented = faults.inventLogs ?? [];
  if (invented.length > 0) {
    const added: RpcLog[] = [];
    for (const [i, item] of invented.entries()) {
      const log = await inventLog(item, state.inventedHashes[i] ?? randomHash(), filter, context, logs[0]);
      if (log) added.push(log);
    }
    if (added.length > 0) {
      logs = [...logs, ...added].sort((a, b) => {
        const byBlock = BigInt(a.blockNumber) - BigInt(b.blockNumber);
        return byBlock !== 0n ? (byBlock < 0n ? -1 : 1) : Number(BigInt(a.logIndex) - BigInt(b.logIndex));
      });
    }
  }
  if (faults.lagLogs) {
    const visible = (await context.head()) - BigInt(faults.lagLogs.blocks);
    if (typeof filter.blockHash === "string") {
      const block = await context.block(filter.blockHash);
      if (block && BigInt(block.number) > visible) return { jsonrpc: answer.jsonrpc, id: answer.id, error: { code: -32000, message: "unknown block" } };
    }
    logs = logs.filter((log) => BigInt(log.blockNumber) <= visible);
  }
  if (faults.duplicateLogs) logs = logs.flatMap((log) => [log, { ...log, topics: [...log.topics] }]);
  return { ...answer, result: logs };
}

/** The invented Transfer log of `item` for a request with `filter`, or null when the filter does not cover it. */
async function inventLog(item: InventedLog, transactionHash: string, filter: LogFilter, context: UpstreamContext, sample: RpcLog | undefined): Promise<RpcLog | null> {
  const contract = item.contract.toLowerCase();
  const addresses = filter.address === undefined || filter.address === null ? null : ([] as Json[]).concat(filter.address);
  if (addresses && !addresses.some((a) => typeof a === "string" && a.toLowerCase() === contract)) return null;
  const topics = [TRANSFER_TOPIC, topicOf(item.from), topicOf(item.to)];
  if (!topicsMatch(filter.topics, topics)) return null;
  let block: RpcBlock | null;
  if (typeof filter.blockHash === "string") {
    block = await context.block(filter.blockHash);
    if (!block || (item.blockNumber !== undefined && BigInt(item.blockNumber) !== BigInt(block.number))) return null;
  } else {
    const from = await context.blockNumber(filter.fromBlock);
    const requestedTo = await context.blockNumber(filter.toBlock);
    if (from === null || requestedTo === null) return null;
    const head = await context.head();
    const to = requestedTo < head ? requestedTo : head;
    const target = item.blockNumber !== undefined ? BigInt(item.blockNumber) : to;
    if (target < from || target > to) return null;
    block = await context.block(target);
    if (!block) return null;
  }
  const log: RpcLog = {
    address: contract,
    topics,
    data: word(BigInt(item.value)),
    blockHash: block.hash,
    blockNumber: block.number,
    blockTimestamp: block.timestamp,
    transactionHash,
    transactionIndex: "0x0",
    logIndex: hex(item.logIndex ?? 0x7fff),
    removed: false,
  };
  // Shaped like the upstream's own entries (anvil's order by default; without blockTimestamp where they have none).
  if (sample !== undefined && sample.blockTimestamp === undefined) delete log.blockTimestamp;
  return orderedLike(log, sample);
}

/** `log` with its keys in the order of a real entry of the same answer, when there is one. */
function orderedLike(log: RpcLog, sample: RpcLog | undefined): RpcLog {
  if (!sample) return log;
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(sample)) if (key in log) ordered[key] = log[key as keyof RpcLog];
  return Object.assign(ordered, log) as RpcLog;
}

/** eth_getLogs topic filtering: per position, null matches anything, a string itself, an array any of its members. */
function topicsMatch(filter: Json, topics: string[]): boolean {
  if (!Array.isArray(filter)) return true;
  return filter.every((wanted: Json, i) => {
    if (wanted === null || wanted === undefined) return true;
    const topic = topics[i];
    if (topic === undefined) return false;
    const options = Array.isArray(wanted) ? wanted : [wanted];
    return options.length === 0 || options.some((o) => o === null || (typeof o === "string" && o.toLowerCase() === topic));
  });
}

function tamperReceipt(tampering: ProxyFaults["tamperReceipts"], result: Json): Json {
  if (tampering === "missing" || !isRecord(result)) return tampering === "missing" ? null : result;
  const logs = Array.isArray(result.logs) ? (result.logs as RpcLog[]) : [];
  switch (tampering) {
    case "otherBlockHash": {
      const blockHash = randomHash();
      return { ...result, blockHash, logs: logs.map((log) => ({ ...log, blockHash })) };
    }
    case "otherValue":
      return {
        ...result,
        logs: logs.map((log) => (log.topics[0] === TRANSFER_TOPIC && log.topics.length === 3 ? { ...log, data: word(BigInt(log.data) + 1n) } : log)),
      };
    case "failed":
      return { ...result, status: "0x0" };
    default:
      return result;
  }
}
