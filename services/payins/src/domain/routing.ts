/** Asset codes the platform accepts today. */
export const ASSETS = ["usdt", "usdc"] as const;
export type Asset = (typeof ASSETS)[number];

/** Rails addresses can be watched on. */
export type Rail = "bep20" | "erc20";

/**
 * Routing: the one table that picks a rail for an asset. Later rails extend it;
 * clients never choose the rail.
 */
export const RAIL_FOR_ASSET: Record<Asset, Rail> = {
  usdt: "bep20",
  usdc: "erc20",
};

/** True for an asset code routing knows. */
export function isAsset(value: string): value is Asset {
  return (ASSETS as readonly string[]).includes(value);
}
