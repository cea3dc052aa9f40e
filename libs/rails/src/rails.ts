import { ConfigError, int, list, optionalStr, parseConfig, str, type Reader } from "@payin/config";
import { ASSETS, AmountError, RAIL_FOR_ASSET, RAILS, canonicalAmount, isAsset, toBaseUnits, type Asset, type Rail } from "@payin/money";
import { MAINNET_RAILS, PUBLIC_CHAINS } from "./mainnet.js";

/** A token watched on a rail. */
export interface RailToken {
  asset: Asset;
  /** The ERC-20 contract, lower case (logs are matched on it). */
  contract: `0x${string}`;
  decimals: number;
}

export interface RailConfig {
  rail: Rail;
  chainId: number;
  /**
   * The JSON-RPC endpoints, in order of preference; empty when none is
   * configured (the rail is then not observed). Reads fail over from one to
   * the next; with two or more, a transfer counts only once another endpoint
   * than the one that read it confirms it (docs/architecture.md, "Chain trust").
   */
  rpcUrls: readonly string[];
  /** The chain's genesis block hash where it is known in advance (the public chains); else learned at the observer's first pass. */
  genesisHash: `0x${string}` | undefined;
  /** The token an intent on this rail is paid in (routing's asset for the rail). */
  token: RailToken;
  /** The other tokens watched on the rail: their transfers are evidence (wrong token), never payment. */
  otherTokens: readonly RailToken[];
  /** Blocks below the head a transfer needs before it settles, whatever `finalized` says (settled = min(finalized, head − confirmations)). */
  confirmations: number;
  pollIntervalMs: number;
  maxBlockRange: number;
  /** A transfer below this many base units of its token is dust: evidence, never counted (zero always is). */
  dustThreshold: (token: RailToken) => bigint;
}

export interface RailsConfig {
  rails: Readonly<Record<Rail, RailConfig>>;
  /** How long after an intent's `expires_at` its address is still watched (default 7 days). */
  watchAfterExpiryMs: number;
}

/** The variables of a rail are named `<prefix>_…`: BEP20_RPC_URL, ERC20_CHAIN_ID, … */
export const RAIL_ENV_PREFIX: Readonly<Record<Rail, string>> = { bep20: "BEP20", erc20: "ERC20" };

const CONTRACT = /^0x[0-9a-fA-F]{40}$/;
const DEFAULT_DUST_THRESHOLD = "0.001";

/**
 * `asset:contract:decimals` items, e.g. `usdt:0x55d3…7955:18`: the whole token
 * table of a rail, its routed asset included.
 */
function tokenList(fallback: readonly RailToken[]): Reader<readonly RailToken[]> {
  const items = list((item) => {
    const [asset, contract, decimals, extra] = item.split(":");
    if (extra !== undefined || asset === undefined || contract === undefined || decimals === undefined) return "is not asset:contract:decimals";
    if (!isAsset(asset)) return `names an unknown asset (known: ${ASSETS.join(", ")})`;
    if (!CONTRACT.test(contract)) return "has no contract address of 0x and 40 hex digits";
    if (!/^\d{1,2}$/.test(decimals) || Number(decimals) > 36) return "has decimals outside 0 to 36";
    return null;
  });
  return (env, name) => {
    const parsed = items(env, name);
    if (parsed.length === 0) return fallback;
    return parsed.map((item) => {
      const [asset, contract, decimals] = item.split(":") as [Asset, string, string];
      return { asset, contract: contract.toLowerCase() as `0x${string}`, decimals: Number(decimals) };
    });
  };
}

function railConfig(rail: Rail, env: Record<string, string | undefined>): RailConfig {
  const defaults = MAINNET_RAILS[rail];
  const p = RAIL_ENV_PREFIX[rail];
  const mainnetTokens: RailToken[] = Object.entries(defaults.tokens).map(([asset, t]) => ({
    asset: asset as Asset,
    contract: t.contract.toLowerCase() as `0x${string}`,
    decimals: t.decimals,
  }));
  const read = parseConfig(
    {
      [`${p}_RPC_URL`]: optionalStr(),
      [`${p}_RPC_URLS`]: list(),
      [`${p}_CHAIN_ID`]: int(defaults.chainId, 1, Number.MAX_SAFE_INTEGER),
      [`${p}_TOKENS`]: tokenList(mainnetTokens),
      [`${p}_CONFIRMATIONS`]: int(defaults.confirmations, 0, 10_000),
      [`${p}_POLL_INTERVAL_MS`]: int(defaults.pollIntervalMs, 50, 600_000),
      [`${p}_MAX_BLOCK_RANGE`]: int(defaults.maxBlockRange, 1, 1_000_000),
      [`${p}_DUST_THRESHOLD`]: str(DEFAULT_DUST_THRESHOLD),
    },
    env,
  );
  const tokens = read[`${p}_TOKENS`] as readonly RailToken[];
  const routed = ASSETS.find((asset) => RAIL_FOR_ASSET[asset] === rail);
  const token = tokens.find((t) => t.asset === routed);
  if (!token) throw new ConfigError(`${p}_TOKENS`, `must include the ${routed} token, which intents on ${rail} are paid in`);
  const seen = new Set<string>();
  for (const t of tokens) {
    if (seen.has(t.contract) || seen.has(t.asset)) throw new ConfigError(`${p}_TOKENS`, "names a contract or an asset twice");
    seen.add(t.contract).add(t.asset);
  }
  const dustText = read[`${p}_DUST_THRESHOLD`] as string;
  let dust: string;
  try {
    dust = dustText === "0" ? "0" : canonicalAmount(dustText);
  } catch (error) {
    throw new ConfigError(`${p}_DUST_THRESHOLD`, `must be a decimal amount in token units: ${(error as AmountError).message}`);
  }
  const chainId = read[`${p}_CHAIN_ID`] as number;
  const publicChain = PUBLIC_CHAINS[chainId];
  const configured = env[`${p}_CONFIRMATIONS`] !== undefined && env[`${p}_CONFIRMATIONS`] !== "";
  // Unset, a rail's default is raised to its chain's floor (a rail may run on the other public chain).
  const confirmations = configured ? (read[`${p}_CONFIRMATIONS`] as number) : Math.max(read[`${p}_CONFIRMATIONS`] as number, publicChain?.confirmationsFloor ?? 0);
  if (publicChain && confirmations < publicChain.confirmationsFloor) {
    throw new ConfigError(`${p}_CONFIRMATIONS`, `must be at least ${publicChain.confirmationsFloor} on ${publicChain.name} (chain ${chainId}), got ${confirmations}`);
  }
  return {
    rail,
    chainId,
    rpcUrls: endpoints(p, read[`${p}_RPC_URL`] as string | undefined, read[`${p}_RPC_URLS`] as readonly string[]),
    genesisHash: publicChain?.genesisHash,
    token,
    otherTokens: tokens.filter((t) => t !== token),
    confirmations,
    pollIntervalMs: read[`${p}_POLL_INTERVAL_MS`] as number,
    maxBlockRange: read[`${p}_MAX_BLOCK_RANGE`] as number,
    // A threshold finer than a token's decimals rounds up to its smallest unit.
    dustThreshold: (t) => baseUnitsAtLeast(dust, t.decimals),
  };
}

/** Host names that reach this machine only: the one place a plain `http:` endpoint is accepted. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * A rail's endpoints from `<P>_RPC_URLS` (a comma-separated list) or
 * `<P>_RPC_URL` (one), not both: each `https:`, or `http:` on a loopback host
 * only (a plain-text answer from elsewhere could be altered on the way), none
 * twice. An error never repeats a URL (providers put API keys in them), only
 * its position.
 */
function endpoints(p: string, single: string | undefined, many: readonly string[]): readonly string[] {
  if (single !== undefined && many.length > 0) throw new ConfigError(`${p}_RPC_URLS`, `and ${p}_RPC_URL are both set; set one of them`);
  const name = single !== undefined ? `${p}_RPC_URL` : `${p}_RPC_URLS`;
  const urls = single !== undefined ? [single.trim()] : many;
  const seen = new Set<string>();
  urls.forEach((text, index) => {
    const which = urls.length > 1 ? `'s endpoint ${index + 1}` : "";
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new ConfigError(`${name}${which}`, "is not a URL");
    }
    if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) {
      throw new ConfigError(`${name}${which}`, "must be an https: URL (http: is accepted on a loopback host only: 127.0.0.1, localhost, [::1])");
    }
    if (seen.has(url.href)) throw new ConfigError(name, `names endpoint ${index + 1} twice`);
    seen.add(url.href);
  });
  return Object.freeze([...urls]);
}

/** `amount` in base units of a token with `decimals`, rounded up to a whole unit. */
function baseUnitsAtLeast(amount: string, decimals: number): bigint {
  const [whole, fraction = ""] = amount.split(".") as [string, string?];
  if (fraction.length <= decimals) return toBaseUnits(amount, decimals);
  const kept = toBaseUnits(`${whole}.${fraction.slice(0, decimals)}`.replace(/\.$/, ""), decimals);
  return kept + 1n;
}

/**
 * Every rail's configuration from the environment over the mainnet defaults.
 * Throws ConfigError naming the first bad variable; two rails on one chain id
 * are refused (an address is watched per chain).
 */
export function railsFromEnv(env: Record<string, string | undefined> = process.env): RailsConfig {
  const rails = Object.fromEntries(RAILS.map((rail) => [rail, railConfig(rail, env)])) as Record<Rail, RailConfig>;
  const chainIds = new Set(RAILS.map((rail) => rails[rail].chainId));
  if (chainIds.size !== RAILS.length) throw new ConfigError(`${RAIL_ENV_PREFIX.erc20}_CHAIN_ID`, "must differ from every other rail's chain id");
  const { WATCH_AFTER_EXPIRY_S } = parseConfig({ WATCH_AFTER_EXPIRY_S: int(7 * 24 * 3600, 0, 365 * 24 * 3600) }, env);
  return Object.freeze({ rails: Object.freeze(rails), watchAfterExpiryMs: WATCH_AFTER_EXPIRY_S * 1000 });
}
