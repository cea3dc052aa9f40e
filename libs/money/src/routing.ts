/** Asset codes the platform accepts today. */
export const ASSETS = ["usdt", "usdc"] as const;
export type Asset = (typeof ASSETS)[number];

/** Rails addresses can be watched on (both use the EVM address format): the one list. */
export const RAILS = ["bep20", "erc20"] as const;
export type Rail = (typeof RAILS)[number];

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
  return (RAILS as readonly string[]).includes(value);
}

/** Every (asset, rail) pair routing serves, in the table's order. */
export const ROUTED_PAIRS: readonly { asset: Asset; rail: Rail }[] = ASSETS.map((asset) => ({ asset, rail: RAIL_FOR_ASSET[asset] }));
