/**
 * Readiness in words a merchant understands: each reason code of the contract
 * (allocation's ReadinessReason) with what it means and what to ask the
 * platform for, and asset/network pairs named so they cannot be misread. Pure.
 */
import { READINESS_REASON, READINESS_REASON_NAMES, readinessReasonNames, type allocationV1, type ReadinessReasonName } from "@payin/proto";
import { tokenOnNetwork } from "./payment-terms.js";

/** The contract's readiness reason codes, in the order a pair lists them (@payin/proto derives them from the contract). */
export const READINESS_REASON_CODES = READINESS_REASON_NAMES;

export type ReadinessReasonCode = ReadinessReasonName;

/** A failing reason as a merchant reads it. */
export interface ReasonExplanation {
  /** The contract's code, shown beside the words (support and the platform speak in codes). */
  code: string;
  /** What is wrong, in plain words. */
  meaning: string;
  /** What to ask the platform for. */
  ask: string;
}

const EXPLANATIONS: Readonly<Record<ReadinessReasonCode, Omit<ReasonExplanation, "code">>> = {
  merchant_inactive: {
    meaning: "Your merchant account is not active.",
    ask: "Ask the platform to activate your merchant account.",
  },
  operating_profile_missing: {
    meaning: "Your merchant account has no operating profile yet.",
    ask: "Ask the platform to set up the operating profile of your merchant account.",
  },
  payin_not_allowed: {
    meaning: "Your financial policy does not allow you to receive payments (pay-ins), or the platform does not allow them for sales in the country of the checkout.",
    ask: "Ask the platform to allow pay-ins in your financial policy, or in that country.",
  },
  asset_not_configured: {
    meaning: "The platform does not offer this token on this network.",
    ask: "Ask the platform whether it can offer this token on this network, or choose another one.",
  },
  wallet_not_ready: {
    meaning: "No receiving wallet is registered for your account, so there is nowhere to receive payments.",
    ask: "Ask the platform to register your receiving wallet (its extended public key).",
  },
  allocator_not_ready: {
    meaning: "Your receiving wallet has no deposit addresses left to hand out.",
    ask: "Ask the platform to register a new receiving wallet for your account.",
  },
  provider_not_ready: {
    meaning: "Payments on this network cannot be watched at the moment: no network provider is connected for your account (for sales in the country of the checkout), or watching the network has stopped.",
    ask: "Ask the platform to connect your account to a network provider for that country and to check that this network is being watched.",
  },
};

/** Whether `code` is one of the contract's reason codes. */
export function isReadinessReasonCode(code: string): code is ReadinessReasonCode {
  return READINESS_REASON.isName(code);
}

/** A reason code in plain words; a code this gateway does not know (a newer allocation) is still shown, with a general request. */
export function explainReason(code: string): ReasonExplanation {
  if (isReadinessReasonCode(code)) return { code, ...EXPLANATIONS[code] };
  return { code, meaning: "This pair is not ready for a reason this page cannot describe.", ask: "Ask the platform what is missing, quoting the code." };
}

/** An asset/network pair named for people, e.g. "USDT on BNB Smart Chain (BEP20)". */
export function pairLabel(asset: string, rail: string): string {
  return tokenOnNetwork({ asset, rail });
}

/** One pair's readiness as the merchant pages show it. */
export interface PairReadinessView {
  asset: string;
  rail: string;
  /** The form's value for the pair: `asset/rail`. */
  value: string;
  label: string;
  ready: boolean;
  reasons: ReasonExplanation[];
}

/** A pair's readiness in words; not ready also when allocation said not ready without a reason. */
export function pairReadinessView(pair: allocationV1.PairReadiness): PairReadinessView {
  const codes = readinessReasonNames(pair);
  return {
    asset: pair.asset,
    rail: pair.rail,
    value: `${pair.asset}/${pair.rail}`,
    label: pairLabel(pair.asset, pair.rail),
    ready: pair.ready && codes.length === 0,
    reasons: codes.map(explainReason),
  };
}
