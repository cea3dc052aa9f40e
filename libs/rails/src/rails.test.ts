import { ConfigError } from "@payin/config";
import { describe, expect, it } from "vitest";
import { MAINNET_RAILS, railsFromEnv } from "./index.js";

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
      rpcUrl: undefined,
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
      rpcUrl: "http://127.0.0.1:8545",
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
});
