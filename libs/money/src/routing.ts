/** Asset codes the platform accepts today. */
export const ASSETS = ["usdt", "usdc"] as const;
export type Asset = (typeof ASSETS)[number];

/** Rails addresses can be watched on. */
export type Rail = "bep20" | "erc20";

/**
 * Routing: the one table that picks a rail for an asset, used by
 * payins to route a pay-in and by allocation to decide readiness. Later rails
 * extend it; clients never choose the rail.
 */
export const RAIL_FOR_ASSET: Record<Asset, Rail> = {
  usdt: "bep20",
  usdc: "erc20",
};

/** True for an asset code routing knows. */
export function isAsset(value: string): value is Asset {
  return (ASSETS as readonly string[]).includes(value);
}

/** True for a rail routing serves. */
export function isRail(value: string): value is Rail {
  return (Object.values(RAIL_FOR_ASSET) as string[]).includes(value);
}

/** Every (asset, rail) pair routing serves, in the table's order. */
export const ROUTED_PAIRS: readonly { asset: Asset; rail: Rail }[] = ASSETS.map((asset) => ({ asset, rail: RAIL_FOR_ASSET[asset] }));
