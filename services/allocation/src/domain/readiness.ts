import { decide, ELIGIBILITY_REASONS, type EligibilityReason, type EligibilityScope, type MerchantSide } from "@payin/eligibility";
import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { isCountryCode } from "@payin/ids/countries";
import { ROUTED_PAIRS } from "@payin/money";
import { MAX_ADDRESS_INDEX } from "./hd.js";
import { AllocationReason } from "./reasons.js";
import type { Wallet, WalletStore } from "./wallet.js";

/**
 * The readiness reasons, in the contract's order: ReadinessReason of
 * proto/payin/allocation/v1/allocation_service.proto (rpc/mappers.ts
 * maps them to it). The one list of @payin/eligibility, which decides them.
 */
export const READINESS_REASONS = ELIGIBILITY_REASONS;
export type ReadinessReason = EligibilityReason;

// The last index `xpub/0/index` can take: a wallet past it cannot allocate.
export { MAX_ADDRESS_INDEX };

export interface AssetRail {
  asset: string;
  rail: string;
}

/**
 * The merchant's side of readiness, from the merchants service: its pay-in
 * context (GetPayinContext), the same answer pay-in create decides from.
 */
export type MerchantReadinessInputs = MerchantSide;

/** Reads the merchant's side; null when the merchant does not exist. */
export interface MerchantReadinessSource {
  /** For pay-ins in `jurisdiction`, or merchant-wide when null. */
  readinessInputs(merchantUuid: string, jurisdiction: string | null): Promise<MerchantReadinessInputs | null>;
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
 * What a caller asks readiness about (EligibilityScope): "operation" (the
 * readiness endpoint, the hosted checkout) counts everything, whether payments
 * on the pair can be seen now included; "configuration" (pay-in create) leaves
 * out a rail's observer that lags, which is transient.
 */
export type ReadinessScope = EligibilityScope;

/** Everything one pair's readiness is decided from. */
export interface PairInputs {
  merchant: MerchantReadinessInputs;
  /** The jurisdiction `merchant` was read for; null: merchant-wide. */
  jurisdiction: string | null;
  wallet: Wallet | null;
  /** The pair's rail is being observed (isObserving). */
  observing: boolean;
}

export interface PairReadiness extends AssetRail {
  ready: boolean;
  reasons: ReadinessReason[];
}

/**
 * The readiness of one pair: every failing reason, in the contract's order,
 * as @payin/eligibility's `decide` finds them (what each reason means is
 * there). The one decision for every caller; pay-in create (payins) makes the
 * same one, in the "configuration" scope, from the same merchant inputs.
 */
export function decidePair(pair: AssetRail, inputs: PairInputs, scope: ReadinessScope = "operation"): PairReadiness {
  const reasons = decide({ pair, jurisdiction: inputs.jurisdiction, merchant: inputs.merchant, wallet: inputs.wallet, observing: inputs.observing }, scope);
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
 * none is), for pay-ins in `jurisdiction` (merchant-wide when none is given or
 * it is empty), in `scope` ("operation": everything). MERCHANT_NOT_FOUND for an
 * unknown merchant.
 */
export async function getReadiness(
  deps: ReadinessDeps,
  input: { merchantUuid: string; pairs: readonly AssetRail[]; jurisdiction?: string; scope?: ReadinessScope },
): Promise<PairReadiness[]> {
  if (!isUuid(input.merchantUuid)) throw new DomainError(AllocationReason.InvalidArgument, "merchant_uuid must be a lower-case UUID");
  for (const pair of input.pairs) {
    if (!pair.asset || !pair.rail) throw new DomainError(AllocationReason.InvalidArgument, "every pair needs an asset and a rail");
  }
  const jurisdiction = input.jurisdiction || null;
  if (jurisdiction !== null && !isCountryCode(jurisdiction)) {
    throw new DomainError(AllocationReason.InvalidArgument, "jurisdiction must be an assigned ISO 3166-1 alpha-2 code in upper case, or empty");
  }
  const [merchant, wallet, advanced] = await Promise.all([
    deps.merchants.readinessInputs(input.merchantUuid, jurisdiction),
    deps.wallets.find(input.merchantUuid),
    deps.observation.lastAdvanced(),
  ]);
  if (!merchant) throw new DomainError(AllocationReason.MerchantNotFound, "merchant not found");
  const now = deps.now();
  const pairs = input.pairs.length > 0 ? input.pairs : ROUTED_PAIRS;
  return pairs.map((pair) =>
    decidePair(pair, { merchant, jurisdiction, wallet, observing: isObserving(advanced.get(pair.rail), now, deps.observerStallMs) }, input.scope ?? "operation"),
  );
}
