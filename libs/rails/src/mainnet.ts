import type { Asset, Rail } from "@payin/money";

/** What a rail is on its public network, before the environment overrides it. */
export interface RailDefaults {
  chainId: number;
  /** Every token watched on the rail, the routed one (RAIL_FOR_ASSET) among them. */
  tokens: Readonly<Partial<Record<Asset, { contract: `0x${string}`; decimals: number }>>>;
  /** Blocks below the head a transfer needs before it settles (also where the endpoint serves a `finalized` block). */
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

/** What is fixed about a public chain, whatever the configuration says. */
export interface PublicChain {
  name: string;
  /** Its block 0: an endpoint answering another serves another chain. */
  genesisHash: `0x${string}`;
  /** The fewest confirmations a transfer gets before it settles; `<RAIL>_CONFIRMATIONS` cannot go lower. */
  confirmationsFloor: number;
}

/**
 * The public chains the rails run on, by chain id. A local development chain
 * (any other id) takes the confirmations it is configured with and has its
 * genesis learned at the observer's first pass.
 */
export const PUBLIC_CHAINS: Readonly<Record<number, PublicChain>> = {
  56: { name: "BNB Smart Chain", genesisHash: "0x0d21840abff46b96c84b2ac9e10e4f5cdaeb5693cb665db62a2f3b02d2d57b5b", confirmationsFloor: 15 },
  1: { name: "Ethereum", genesisHash: "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3", confirmationsFloor: 12 },
};
