import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { ROUTED_PAIRS } from "@payin/money";
import { MAX_ADDRESS_INDEX } from "./hd.js";
import { AllocationReason } from "./reasons.js";
import type { Wallet, WalletStore } from "./wallet.js";

/**
 * The readiness reasons, in the contract's order: ReadinessReason of
 * proto/payin/allocation/v1/allocation_service.proto (rpc/mappers.ts
 * maps them to it).
 */
export const READINESS_REASONS = [
  "merchant_inactive",
  "operating_profile_missing",
  "payin_not_allowed",
  "asset_not_configured",
  "wallet_not_ready",
  "allocator_not_ready",
  "provider_not_ready",
] as const;
export type ReadinessReason = (typeof READINESS_REASONS)[number];

// The last index `xpub/0/index` can take: a wallet past it cannot allocate.
export { MAX_ADDRESS_INDEX };

export interface AssetRail {
  asset: string;
  rail: string;
}

/** The merchant's side of readiness, from the merchants service. */
export interface MerchantReadinessInputs {
  status: "inactive" | "active" | "suspended" | "closed";
  payinPolicyEffect: "allow" | "deny" | null;
  operatingMode: string | null;
  /** A provider is bound for crypto.payin and the merchant is connected to it. */
  providerConnected: boolean;
}

/** Reads the merchant's side; null when the merchant does not exist. */
export interface MerchantReadinessSource {
  readinessInputs(merchantUuid: string): Promise<MerchantReadinessInputs | null>;
}

export interface PairReadiness extends AssetRail {
  ready: boolean;
  reasons: ReadinessReason[];
}

/** True when the pair is one the platform serves: routing's one table (usdt → bep20, usdc → erc20). */
function configured(pair: AssetRail): boolean {
  return ROUTED_PAIRS.some((p) => p.asset === pair.asset && p.rail === pair.rail);
}

/**
 * The readiness of one pair: every failing reason, in the contract's order.
 * - merchant_inactive: the merchant is not `active`;
 * - operating_profile_missing: it has no operating profile;
 * - payin_not_allowed: its open `payin` policy is not `allow`;
 * - asset_not_configured: the platform does not serve the pair;
 * - wallet_not_ready: the merchant has no receiving wallet;
 * - allocator_not_ready: the wallet has handed out every index it has;
 * - provider_not_ready: no provider is bound for crypto.payin with a connection.
 */
export function decidePair(pair: AssetRail, merchant: MerchantReadinessInputs, wallet: Wallet | null): PairReadiness {
  const failing: Record<ReadinessReason, boolean> = {
    merchant_inactive: merchant.status !== "active",
    operating_profile_missing: merchant.operatingMode === null,
    payin_not_allowed: merchant.payinPolicyEffect !== "allow",
    asset_not_configured: !configured(pair),
    wallet_not_ready: wallet === null,
    allocator_not_ready: wallet !== null && wallet.nextIndex > MAX_ADDRESS_INDEX,
    provider_not_ready: !merchant.providerConnected,
  };
  const reasons = READINESS_REASONS.filter((reason) => failing[reason]);
  return { asset: pair.asset, rail: pair.rail, ready: reasons.length === 0, reasons };
}

/**
 * The readiness of a merchant on each pair asked for (every configured pair when
 * none is). MERCHANT_NOT_FOUND for an unknown merchant.
 */
export async function getReadiness(
  deps: { merchants: MerchantReadinessSource; wallets: WalletStore },
  input: { merchantUuid: string; pairs: readonly AssetRail[] },
): Promise<PairReadiness[]> {
  if (!isUuid(input.merchantUuid)) throw new DomainError(AllocationReason.InvalidArgument, "merchant_uuid must be a lower-case UUID");
  for (const pair of input.pairs) {
    if (!pair.asset || !pair.rail) throw new DomainError(AllocationReason.InvalidArgument, "every pair needs an asset and a rail");
  }
  const [merchant, wallet] = await Promise.all([
    deps.merchants.readinessInputs(input.merchantUuid),
    deps.wallets.find(input.merchantUuid),
  ]);
  if (!merchant) throw new DomainError(AllocationReason.MerchantNotFound, "merchant not found");
  const pairs = input.pairs.length > 0 ? input.pairs : ROUTED_PAIRS;
  return pairs.map((pair) => decidePair(pair, merchant, wallet));
}
