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

/** How recently the chain observer advanced on each rail (store/observer-health.ts). */
export interface ObservationHealthSource {
  /** When the observer last completed a pass on each rail that has a cursor; a rail without one is absent. */
  lastAdvanced(): Promise<ReadonlyMap<string, Date>>;
}

/** OBSERVER_STALL_MS's default: an observer that has not advanced for a minute is not observing. */
export const DEFAULT_OBSERVER_STALL_MS = 60_000;

/**
 * Whether a rail is being observed: its observer advanced (completed a pass,
 * whether or not it found new blocks) within `stallMs` of `now`. No cursor (the
 * rail is not configured, or its observer never ran) is not observed. An
 * instant after `now` (the observer's clock a little ahead) counts as now.
 */
export function isObserving(advancedAt: Date | undefined, now: Date, stallMs: number): boolean {
  return advancedAt !== undefined && now.getTime() - advancedAt.getTime() <= stallMs;
}

/**
 * What a caller asks readiness about:
 * - "operation" (the readiness endpoint, the hosted checkout): everything,
 *   whether payments on the pair can be seen now included;
 * - "configuration" (pay-in create over the API): what the merchant's and the
 *   platform's configuration decide, leaving out the transient part — a rail's
 *   observer that lags (RPC down, lease not held) — since the observer catches
 *   up from its cursor and then watches what was created meanwhile.
 */
export type ReadinessScope = "configuration" | "operation";

/** Everything one pair's readiness is decided from. */
export interface PairInputs {
  merchant: MerchantReadinessInputs;
  wallet: Wallet | null;
  /** The pair's rail is being observed (isObserving). */
  observing: boolean;
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
 * - provider_not_ready: no provider is bound for crypto.payin with a
 *   connection, or (in the "operation" scope only) the pair's rail is not being
 *   observed.
 * The one decision for every caller; `scope` says whether the transient part
 * counts (ReadinessScope). Pay-in create (payins) refuses on exactly the
 * "configuration" reasons, from the same inputs (merchants' pay-in context).
 */
export function decidePair(pair: AssetRail, inputs: PairInputs, scope: ReadinessScope = "operation"): PairReadiness {
  const { merchant, wallet } = inputs;
  const failing: Record<ReadinessReason, boolean> = {
    merchant_inactive: merchant.status !== "active",
    operating_profile_missing: merchant.operatingMode === null,
    payin_not_allowed: merchant.payinPolicyEffect !== "allow",
    asset_not_configured: !configured(pair),
    wallet_not_ready: wallet === null,
    allocator_not_ready: wallet !== null && wallet.nextIndex > MAX_ADDRESS_INDEX,
    provider_not_ready: !merchant.providerConnected || (scope === "operation" && !inputs.observing),
  };
  const reasons = READINESS_REASONS.filter((reason) => failing[reason]);
  return { asset: pair.asset, rail: pair.rail, ready: reasons.length === 0, reasons };
}

/** What getReadiness reads from, and its clock. */
export interface ReadinessDeps {
  merchants: MerchantReadinessSource;
  wallets: WalletStore;
  observation: ObservationHealthSource;
  now: () => Date;
  /** How long since its observer last advanced a rail still counts as observed (OBSERVER_STALL_MS). */
  observerStallMs: number;
}

/**
 * The readiness of a merchant on each pair asked for (every configured pair when
 * none is), in `scope` ("operation": everything). MERCHANT_NOT_FOUND for an
 * unknown merchant.
 */
export async function getReadiness(
  deps: ReadinessDeps,
  input: { merchantUuid: string; pairs: readonly AssetRail[]; scope?: ReadinessScope },
): Promise<PairReadiness[]> {
  if (!isUuid(input.merchantUuid)) throw new DomainError(AllocationReason.InvalidArgument, "merchant_uuid must be a lower-case UUID");
  for (const pair of input.pairs) {
    if (!pair.asset || !pair.rail) throw new DomainError(AllocationReason.InvalidArgument, "every pair needs an asset and a rail");
  }
  const [merchant, wallet, advanced] = await Promise.all([
    deps.merchants.readinessInputs(input.merchantUuid),
    deps.wallets.find(input.merchantUuid),
    deps.observation.lastAdvanced(),
  ]);
  if (!merchant) throw new DomainError(AllocationReason.MerchantNotFound, "merchant not found");
  const now = deps.now();
  const pairs = input.pairs.length > 0 ? input.pairs : ROUTED_PAIRS;
  return pairs.map((pair) =>
    decidePair(pair, { merchant, wallet, observing: isObserving(advanced.get(pair.rail), now, deps.observerStallMs) }, input.scope ?? "operation"),
  );
}
