import { ROUTED_PAIRS } from "@payin/money";

/**
 * Why a merchant cannot take a pay-in: the contract's readiness reason codes,
 * in the order a refusal lists them (ReadinessReason of
 * proto/payin/allocation/v1/allocation_service.proto).
 */
export const ELIGIBILITY_REASONS = [
  "merchant_inactive",
  "operating_profile_missing",
  "payin_not_allowed",
  "asset_not_configured",
  "wallet_not_ready",
  "allocator_not_ready",
  "provider_not_ready",
] as const;
export type EligibilityReason = (typeof ELIGIBILITY_REASONS)[number];

export type Effect = "allow" | "deny";

/**
 * The merchant's side, as the merchants service answers it for a jurisdiction
 * (GetPayinContext, one statement; an empty jurisdiction asks merchant-wide).
 */
export interface MerchantSide {
  /** Its status; only `active` takes pay-ins (so does no status a caller does not know). */
  status: string;
  /** Effect of its open `payin` policy; null when it has none. */
  payinPolicyEffect: Effect | null;
  /** Its operating mode; null (or empty) without an operating profile. */
  operatingMode: string | null;
  /** Effect of the platform's open crypto.payin rule for the jurisdiction asked; null when none (or none was asked). */
  ruleEffect: Effect | null;
  /** A provider is bound to it for crypto.payin, in any jurisdiction, and it has a connection to that provider. */
  providerConnected: boolean;
  /**
   * A provider is bound to it for (crypto.payin, the jurisdiction asked) and it
   * has a connection to that provider; false when no jurisdiction was asked.
   */
  providerConnectedInJurisdiction: boolean;
}

/** The merchant's receiving wallet, as allocation keeps it. */
export interface WalletSide {
  /** The next index `xpub/0/index` its counter hands out. */
  nextIndex: number;
}

/** The last index a non-hardened BIP32 child (`xpub/0/index`) can take: a wallet past it has no address left. */
export const MAX_ADDRESS_INDEX = 2 ** 31 - 1;

/**
 * What a caller asks about:
 * - "operation" (readiness: the admin API, the hosted checkout's creation and
 *   payer page): everything, whether payments on the pair can be seen now
 *   included;
 * - "configuration" (pay-in create): what the merchant's and the platform's
 *   configuration decide, leaving out the transient part (a rail's observer
 *   that lags: RPC down, lease not held), since the observer catches up from
 *   its cursor and then watches what was created meanwhile.
 */
export type EligibilityScope = "configuration" | "operation";

/** Everything one decision is made from. */
export interface EligibilityInputs {
  /** The (asset, rail) pair of the pay-in. */
  pair: { asset: string; rail: string };
  /**
   * The jurisdiction of the sale (ISO 3166-1 alpha-2) that `merchant` was
   * answered for: its crypto.payin rule and a provider bound for it count.
   * null asks merchant-wide: no rule counts, and a provider bound in any
   * jurisdiction is enough (so a merchant Ready merchant-wide may still be
   * refused in a particular jurisdiction).
   */
  jurisdiction: string | null;
  merchant: MerchantSide;
  /**
   * The receiving wallet; null when the merchant has none. Left out by a
   * caller that does not read it: pay-in create, where allocating the address
   * refuses a merchant without a wallet (WALLET_NOT_READY) on the same
   * condition, in the same step.
   */
  wallet?: WalletSide | null;
  /**
   * The pair's rail is being observed (its observer completed a pass recently).
   * Counts in the "operation" scope only, where leaving it out is "not observed".
   */
  observing?: boolean;
}

/** True when the platform serves the pair: routing's one table (usdt → bep20, usdc → erc20). */
function routed(pair: { asset: string; rail: string }): boolean {
  return ROUTED_PAIRS.some((p) => p.asset === pair.asset && p.rail === pair.rail);
}

/**
 * Every reason the merchant cannot take the pay-in, in the contract's order;
 * none when it can.
 * - merchant_inactive: its status is not `active`;
 * - operating_profile_missing: it has no operating profile;
 * - payin_not_allowed: its open `payin` policy does not allow, or (a
 *   jurisdiction asked) the platform's open crypto.payin rule for the
 *   jurisdiction does not (none, or deny);
 * - asset_not_configured: the platform does not serve the pair;
 * - wallet_not_ready: it has no receiving wallet;
 * - allocator_not_ready: the wallet has handed out its last index;
 * - provider_not_ready: no provider is bound to it for crypto.payin in the
 *   jurisdiction (merchant-wide: in any) with a connection to it, or (in the
 *   "operation" scope only) the pair's rail is not being observed.
 */
export function decide(inputs: EligibilityInputs, scope: EligibilityScope): EligibilityReason[] {
  const { merchant, wallet, jurisdiction } = inputs;
  const wide = jurisdiction === null;
  const failing: Record<EligibilityReason, boolean> = {
    merchant_inactive: merchant.status !== "active",
    operating_profile_missing: !merchant.operatingMode,
    payin_not_allowed: merchant.payinPolicyEffect !== "allow" || (!wide && merchant.ruleEffect !== "allow"),
    asset_not_configured: !routed(inputs.pair),
    wallet_not_ready: wallet === null,
    allocator_not_ready: wallet != null && wallet.nextIndex > MAX_ADDRESS_INDEX,
    provider_not_ready:
      !(wide ? merchant.providerConnected : merchant.providerConnectedInJurisdiction) || (scope === "operation" && inputs.observing !== true),
  };
  return ELIGIBILITY_REASONS.filter((reason) => failing[reason]);
}
