import { ConfigError } from "@payin/config";
import { describe, expect, it } from "vitest";
import { isLoopbackHost, MAINNET_RAILS, railsFromEnv } from "./index.js";

const BSC_USDT = "0x55d398326f99059ff775485246999027b3197955";
const BSC_USDC = "0x8ac76a51cc950d9822d68b83fe1ad97b32cd580d";
const ETH_USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const ETH_USDT = "0xdac17f958d2ee523a2206206994597c13d831ec7";

function refusal(env: Record<string, string>): string {
  try {
    railsFromEnv(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error("the configuration was accepted");
}

describe("railsFromEnv", () => {
  it("defaults to the mainnets: BSC (56) pays in USDT of 18 decimals, Ethereum (1) in USDC of 6, the other stablecoin watched for evidence", () => {
    const { rails, watchAfterExpiryMs } = railsFromEnv({});
    expect(rails.bep20).toMatchObject({
      chainId: 56,
      rpcUrls: [],
      genesisHash: "0x0d21840abff46b96c84b2ac9e10e4f5cdaeb5693cb665db62a2f3b02d2d57b5b",
      token: { asset: "usdt", contract: BSC_USDT, decimals: 18 },
      otherTokens: [{ asset: "usdc", contract: BSC_USDC, decimals: 18 }],
      confirmations: 15,
      maxBlockRange: 2_000,
    });
    expect(rails.erc20).toMatchObject({
      chainId: 1,
      token: { asset: "usdc", contract: ETH_USDC, decimals: 6 },
      otherTokens: [{ asset: "usdt", contract: ETH_USDT, decimals: 6 }],
      confirmations: 12,
    });
    expect(watchAfterExpiryMs).toBe(7 * 24 * 3600 * 1000);
    expect(MAINNET_RAILS.bep20.tokens.usdt?.contract.toLowerCase()).toBe(BSC_USDT);
  });

  it("takes a local chain's endpoint, chain id, tokens and pace from the environment", () => {
    const { rails } = railsFromEnv({
      BEP20_RPC_URL: "http://127.0.0.1:8545",
      BEP20_CHAIN_ID: "1337056",
      BEP20_TOKENS: "usdc:0x00000000000000000000000000000000000000A2:18,usdt:0x00000000000000000000000000000000000000A1:18",
      BEP20_CONFIRMATIONS: "2",
      BEP20_POLL_INTERVAL_MS: "250",
      BEP20_MAX_BLOCK_RANGE: "50",
      WATCH_AFTER_EXPIRY_S: "60",
    });
    expect(rails.bep20).toMatchObject({
      rpcUrls: ["http://127.0.0.1:8545"],
      genesisHash: undefined,
      chainId: 1_337_056,
      token: { asset: "usdt", contract: "0x00000000000000000000000000000000000000a1", decimals: 18 },
      otherTokens: [{ asset: "usdc", contract: "0x00000000000000000000000000000000000000a2", decimals: 18 }],
      confirmations: 2,
      pollIntervalMs: 250,
      maxBlockRange: 50,
    });
    expect(rails.erc20.chainId).toBe(1);
  });

  it("counts dust in base units of each token, 0.001 by default, a finer threshold rounding up to the smallest unit", () => {
    const { rails } = railsFromEnv({});
    expect(rails.bep20.dustThreshold(rails.bep20.token)).toBe(10n ** 15n);
    expect(rails.erc20.dustThreshold(rails.erc20.token)).toBe(1_000n);
    const custom = railsFromEnv({ ERC20_DUST_THRESHOLD: "0.5", ERC20_TOKENS: "usdc:0x00000000000000000000000000000000000000b1:6,usdt:0x00000000000000000000000000000000000000b2:0" }).rails.erc20;
    expect(custom.dustThreshold(custom.token)).toBe(500_000n);
    expect(custom.dustThreshold(custom.otherTokens[0]!)).toBe(1n);
    expect(railsFromEnv({ BEP20_DUST_THRESHOLD: "0" }).rails.bep20.dustThreshold(rails.bep20.token)).toBe(0n);
  });

  it("refuses what it cannot trust, naming the variable", () => {
    expect(refusal({ BEP20_RPC_URL: "ftp://node" })).toMatch(/BEP20_RPC_URL/);
    expect(refusal({ BEP20_TOKENS: "usdc:0x00000000000000000000000000000000000000a2:18" })).toMatch(/BEP20_TOKENS must include the usdt token/);
    expect(refusal({ BEP20_TOKENS: "usdt:0x1234:18" })).toMatch(/BEP20_TOKENS has an item "usdt:0x1234:18" that has no contract address/);
    expect(refusal({ BEP20_TOKENS: "dai:0x00000000000000000000000000000000000000a2:18" })).toMatch(/unknown asset/);
    expect(refusal({ BEP20_TOKENS: "usdt:0x00000000000000000000000000000000000000a2:37" })).toMatch(/decimals outside 0 to 36/);
    expect(refusal({ BEP20_TOKENS: "usdt:0x00000000000000000000000000000000000000a2" })).toMatch(/asset:contract:decimals/);
    expect(
      refusal({ BEP20_TOKENS: "usdt:0x00000000000000000000000000000000000000a2:18,usdc:0x00000000000000000000000000000000000000A2:18" }),
    ).toMatch(/twice/);
    expect(refusal({ ERC20_CHAIN_ID: "56" })).toMatch(/ERC20_CHAIN_ID must differ/);
    expect(refusal({ ERC20_DUST_THRESHOLD: "-1" })).toMatch(/ERC20_DUST_THRESHOLD/);
    expect(refusal({ BEP20_POLL_INTERVAL_MS: "0" })).toMatch(/BEP20_POLL_INTERVAL_MS/);
    expect(refusal({ ERC20_MAX_BLOCK_RANGE: "0" })).toMatch(/ERC20_MAX_BLOCK_RANGE/);
  });

  it("rounds a dust threshold finer than a token's decimals up to its next whole base unit, and keeps an exact one exact", () => {
    const tokens = (decimals: number[]) =>
      `usdc:0x00000000000000000000000000000000000000b1:${decimals[0]},usdt:0x00000000000000000000000000000000000000b2:${decimals[1]}`;
    const threshold = (dust: string, decimals: [number, number]) => {
      const rail = railsFromEnv({ ERC20_DUST_THRESHOLD: dust, ERC20_TOKENS: tokens(decimals) }).rails.erc20;
      return [rail.dustThreshold(rail.token), rail.dustThreshold(rail.otherTokens[0]!)];
    };
    expect(threshold("1.234", [3, 2])).toEqual([1_234n, 124n]);
    expect(threshold("1.234", [6, 0])).toEqual([1_234_000n, 2n]);
    expect(threshold("0.001", [2, 3])).toEqual([1n, 1n]);
    expect(threshold("2", [0, 18])).toEqual([2n, 2n * 10n ** 18n]);
    expect(threshold("0.000001", [5, 6])).toEqual([1n, 1n]);
    expect(threshold("12.5", [1, 0])).toEqual([125n, 13n]);
    // A zero threshold is zero in every token (a zero transfer is still dust, see matching).
    const none = railsFromEnv({ ERC20_DUST_THRESHOLD: "0" }).rails.erc20;
    expect([none.dustThreshold(none.token), none.dustThreshold(none.otherTokens[0]!)]).toEqual([0n, 0n]);
    // Each rail reads its own threshold.
    const { rails } = railsFromEnv({ ERC20_DUST_THRESHOLD: "0.5" });
    expect(rails.bep20.dustThreshold(rails.bep20.token)).toBe(10n ** 15n);
  });

  it("refuses a dust threshold that is not a decimal amount, saying why", () => {
    expect(refusal({ ERC20_DUST_THRESHOLD: "abc" })).toBe(
      'configuration error: ERC20_DUST_THRESHOLD must be a decimal amount in token units: amount must be a decimal string like "10.50": digits, optionally one \'.\' and more digits',
    );
    expect(refusal({ BEP20_DUST_THRESHOLD: "0.0000001" })).toMatch(/^configuration error: BEP20_DUST_THRESHOLD must be a decimal amount in token units: amount must have at most 6 decimal places$/);
  });

  it("reads a token table of one token, or of tokens with decimals up to 36, listed in any case and order", () => {
    const { rails } = railsFromEnv({
      BEP20_TOKENS: " usdt:0x00000000000000000000000000000000000000A1:36 ",
      ERC20_TOKENS: "usdt:0x00000000000000000000000000000000000000B2:0,usdc:0x00000000000000000000000000000000000000B1:9",
    });
    expect(rails.bep20.token).toEqual({ asset: "usdt", contract: "0x00000000000000000000000000000000000000a1", decimals: 36 });
    expect(rails.bep20.otherTokens).toEqual([]);
    expect(rails.erc20.token).toEqual({ asset: "usdc", contract: "0x00000000000000000000000000000000000000b1", decimals: 9 });
    expect(rails.erc20.otherTokens).toEqual([{ asset: "usdt", contract: "0x00000000000000000000000000000000000000b2", decimals: 0 }]);
  });

  it("refuses a token item with a part too many, decimals that are not 1 or 2 digits, a short contract, or an asset or a contract twice", () => {
    expect(refusal({ BEP20_TOKENS: "usdt:0x00000000000000000000000000000000000000a2:18:x" })).toBe(
      'configuration error: BEP20_TOKENS has an item "usdt:0x00000000000000000000000000000000000000a2:18:x" that is not asset:contract:decimals',
    );
    expect(refusal({ BEP20_TOKENS: "usdt" })).toMatch(/that is not asset:contract:decimals$/);
    expect(refusal({ BEP20_TOKENS: "dai:0x00000000000000000000000000000000000000a2:18" })).toMatch(/that names an unknown asset \(known: usdt, usdc\)$/);
    expect(refusal({ BEP20_TOKENS: "usdt:0x00000000000000000000000000000000000000a2:100" })).toMatch(/that has decimals outside 0 to 36$/);
    expect(refusal({ BEP20_TOKENS: "usdt:0x00000000000000000000000000000000000000a2:1.5" })).toMatch(/that has decimals outside 0 to 36$/);
    expect(refusal({ BEP20_TOKENS: "usdt:0x00000000000000000000000000000000000000a2:" })).toMatch(/that has decimals outside 0 to 36$/);
    expect(refusal({ BEP20_TOKENS: "usdt:0x00000000000000000000000000000000000000a:18" })).toMatch(/that has no contract address of 0x and 40 hex digits$/);
    expect(refusal({ BEP20_TOKENS: "usdt:0x00000000000000000000000000000000000000a2f:18" })).toMatch(/no contract address/);
    expect(refusal({ BEP20_TOKENS: "usdt:x0x00000000000000000000000000000000000000a2:18" })).toMatch(/no contract address/);
    expect(refusal({ BEP20_TOKENS: "usdt:0x000000000000000000000000000000000000000g:18" })).toMatch(/no contract address/);
    // The same asset at two contracts, and the same contract for two assets.
    expect(
      refusal({ BEP20_TOKENS: "usdt:0x00000000000000000000000000000000000000a1:18,usdt:0x00000000000000000000000000000000000000a2:18" }),
    ).toBe("configuration error: BEP20_TOKENS names a contract or an asset twice");
    expect(
      refusal({ ERC20_TOKENS: "usdc:0x00000000000000000000000000000000000000b1:6,usdt:0x00000000000000000000000000000000000000B1:6" }),
    ).toBe("configuration error: ERC20_TOKENS names a contract or an asset twice");
    expect(refusal({ ERC20_TOKENS: "usdt:0x00000000000000000000000000000000000000b2:6" })).toBe(
      "configuration error: ERC20_TOKENS must include the usdc token, which intents on erc20 are paid in",
    );
  });

  it("refuses two rails on one chain id, and reads how long an address is watched after its intent expires", () => {
    expect(refusal({ BEP20_CHAIN_ID: "1" })).toBe("configuration error: ERC20_CHAIN_ID must differ from every other rail's chain id");
    expect(refusal({ BEP20_CHAIN_ID: "7", ERC20_CHAIN_ID: "7" })).toMatch(/ERC20_CHAIN_ID must differ/);
    expect(railsFromEnv({ BEP20_CHAIN_ID: "1", ERC20_CHAIN_ID: "56" }).rails.bep20.chainId).toBe(1);
    expect(railsFromEnv({ WATCH_AFTER_EXPIRY_S: "0" }).watchAfterExpiryMs).toBe(0);
    expect(railsFromEnv({ WATCH_AFTER_EXPIRY_S: String(365 * 24 * 3600) }).watchAfterExpiryMs).toBe(365 * 24 * 3600 * 1000);
    expect(refusal({ WATCH_AFTER_EXPIRY_S: String(365 * 24 * 3600 + 1) })).toMatch(/WATCH_AFTER_EXPIRY_S/);
  });

  it("reads each rail's pace within its bounds and answers a frozen configuration", () => {
    const config = railsFromEnv({
      ERC20_CHAIN_ID: "1337001",
      ERC20_CONFIRMATIONS: "0",
      ERC20_POLL_INTERVAL_MS: "50",
      ERC20_MAX_BLOCK_RANGE: "1",
      ERC20_RPC_URL: "https://node.example",
    });
    expect(config.rails.erc20).toMatchObject({ rail: "erc20", confirmations: 0, pollIntervalMs: 50, maxBlockRange: 1, rpcUrls: ["https://node.example"] });
    expect(config.rails.bep20).toMatchObject({ rail: "bep20", pollIntervalMs: 3_000 });
    expect(railsFromEnv({}).rails.erc20).toMatchObject({ pollIntervalMs: 12_000, maxBlockRange: 2_000 });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.rails)).toBe(true);
    expect(refusal({ BEP20_CONFIRMATIONS: "10001" })).toMatch(/BEP20_CONFIRMATIONS/);
    expect(railsFromEnv({ BEP20_CONFIRMATIONS: "40" }).rails.bep20.confirmations).toBe(40);
    expect(refusal({ BEP20_MAX_BLOCK_RANGE: "1000001" })).toMatch(/BEP20_MAX_BLOCK_RANGE/);
    expect(refusal({ BEP20_POLL_INTERVAL_MS: "600001" })).toMatch(/BEP20_POLL_INTERVAL_MS/);
    expect(refusal({ BEP20_CHAIN_ID: "0" })).toMatch(/BEP20_CHAIN_ID/);
  });

  it("takes a list of endpoints, or one, never both, each https or plain http on a loopback host only, and never repeats a URL in its refusal", () => {
    const { rails } = railsFromEnv({ BEP20_RPC_URLS: "https://a.example/key-1, https://b.example/key-2", ERC20_RPC_URL: "http://[::1]:8545" });
    expect(rails.bep20.rpcUrls).toEqual(["https://a.example/key-1", "https://b.example/key-2"]);
    expect(rails.erc20.rpcUrls).toEqual(["http://[::1]:8545"]);
    expect(railsFromEnv({ BEP20_RPC_URL: "http://localhost:8545" }).rails.bep20.rpcUrls).toEqual(["http://localhost:8545"]);
    expect(railsFromEnv({ BEP20_RPC_URLS: "http://127.0.0.9:1" }).rails.bep20.rpcUrls).toEqual(["http://127.0.0.9:1"]);
    expect(Object.isFrozen(rails.bep20.rpcUrls)).toBe(true);
    expect(refusal({ BEP20_RPC_URL: "https://a.example", BEP20_RPC_URLS: "https://b.example" })).toBe(
      "configuration error: BEP20_RPC_URLS and BEP20_RPC_URL are both set; set one of them",
    );
    const plain = refusal({ BEP20_RPC_URLS: "https://a.example/k, http://bsc.example/secret-key" });
    expect(plain).toBe(
      "configuration error: BEP20_RPC_URLS's endpoint 2 must be an https: URL (http: is accepted on a loopback host only: 127.0.0.1, localhost, [::1])",
    );
    expect(plain).not.toContain("secret-key");
    expect(refusal({ ERC20_RPC_URL: "http://10.0.0.1:8545" })).toMatch(/^configuration error: ERC20_RPC_URL must be an https: URL/);
    expect(refusal({ ERC20_RPC_URL: "http://127.0.0.1.example.com" })).toMatch(/must be an https: URL/);
    expect(refusal({ ERC20_RPC_URL: "ftp://node" })).toMatch(/ERC20_RPC_URL must be an https: URL/);
    expect(refusal({ ERC20_RPC_URL: "not a url" })).toBe("configuration error: ERC20_RPC_URL is not a URL");
    expect(refusal({ ERC20_RPC_URLS: "https://a.example, https://a.example" })).toBe("configuration error: ERC20_RPC_URLS names endpoint 2 twice");
    expect(refusal({ ERC20_RPC_URL: "ws://127.0.0.1:8545" })).toMatch(/ERC20_RPC_URL must be an https: URL/);
    expect(railsFromEnv({ BEP20_RPC_URL: " http://127.0.0.1:8545 " }).rails.bep20.rpcUrls).toEqual(["http://127.0.0.1:8545"]);
  });

  it("holds the public chains to their confirmation floors (BSC 15, Ethereum 12) and their genesis blocks; a local chain takes what it is given", () => {
    expect(refusal({ BEP20_CONFIRMATIONS: "14" })).toBe("configuration error: BEP20_CONFIRMATIONS must be at least 15 on BNB Smart Chain (chain 56), got 14");
    expect(refusal({ ERC20_CONFIRMATIONS: "11" })).toBe("configuration error: ERC20_CONFIRMATIONS must be at least 12 on Ethereum (chain 1), got 11");
    expect(railsFromEnv({ ERC20_CONFIRMATIONS: "12", BEP20_CONFIRMATIONS: "15" }).rails.erc20.confirmations).toBe(12);
    // Unset (or empty), a rail on the other public chain takes that chain's floor.
    expect(railsFromEnv({ BEP20_CHAIN_ID: "1", ERC20_CHAIN_ID: "56", ERC20_CONFIRMATIONS: "" }).rails.erc20.confirmations).toBe(15);
    expect(railsFromEnv({ BEP20_CHAIN_ID: "1", ERC20_CHAIN_ID: "56" }).rails.erc20.confirmations).toBe(15);
    expect(railsFromEnv({ BEP20_CHAIN_ID: "1", ERC20_CHAIN_ID: "56" }).rails.bep20.confirmations).toBe(15);
    // The floor follows the chain, not the rail.
    expect(refusal({ BEP20_CHAIN_ID: "1", ERC20_CHAIN_ID: "56", BEP20_CONFIRMATIONS: "11" })).toMatch(/BEP20_CONFIRMATIONS must be at least 12 on Ethereum/);
    const local = railsFromEnv({ BEP20_CHAIN_ID: "1337056", BEP20_CONFIRMATIONS: "0" }).rails.bep20;
    expect(local).toMatchObject({ confirmations: 0, genesisHash: undefined });
    expect(railsFromEnv({}).rails.erc20.genesisHash).toBe("0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3");
  });

  it("knows a loopback host when it sees one", () => {
    for (const host of ["127.0.0.1", "127.255.0.3", "127.0.10.1", "127.0.0.10", "localhost", "LOCALHOST", "::1", "[::1]"]) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["128.0.0.1", "10.0.0.1", "localhost.example", "127.0.0.1.nip.io", "::2", "0.0.0.0", "1127.0.0.1", "[[::1]", "[::1]]"]) {
      expect(isLoopbackHost(host)).toBe(false);
    }
  });
});
