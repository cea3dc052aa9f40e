import type { Asset, Rail } from "@payin/money";

/** What a rail is on its public network, before the environment overrides it. */
export interface RailDefaults {
  chainId: number;
  /** Every token watched on the rail, the routed one (RAIL_FOR_ASSET) among them. */
  tokens: Readonly<Partial<Record<Asset, { contract: `0x${string}`; decimals: number }>>>;
  /** Blocks below the head that count as settled where the endpoint serves no `finalized` block. */
  confirmations: number;
  pollIntervalMs: number;
  /** Most blocks one log query spans (providers cap log ranges; a "range too large" answer halves it). */
  maxBlockRange: number;
}

/**
 * Mainnet defaults: BNB Smart Chain (56) for BEP20 and Ethereum (1) for ERC20,
 * with the issuers' contracts. USDT on BSC has 18 decimals, USDC on Ethereum 6;
 * the other stablecoin of each chain is watched for wrong-token evidence.
 */
export const MAINNET_RAILS: Readonly<Record<Rail, RailDefaults>> = {
  bep20: {
    chainId: 56,
    tokens: {
      usdt: { contract: "0x55d398326f99059fF775485246999027B3197955", decimals: 18 },
      usdc: { contract: "0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d", decimals: 18 },
    },
    confirmations: 15,
    pollIntervalMs: 3_000,
    maxBlockRange: 2_000,
  },
  erc20: {
    chainId: 1,
    tokens: {
      usdc: { contract: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48", decimals: 6 },
      usdt: { contract: "0xdAC17F958D2ee523a2206206994597C13D831ec7", decimals: 6 },
    },
    confirmations: 12,
    pollIntervalMs: 12_000,
    maxBlockRange: 2_000,
  },
};
