import { allocationV1 } from "@payin/proto";

const { ReadinessReason } = allocationV1;

/**
 * The API's readiness reason codes (docs/platform-api.md), one per value of the
 * allocation contract's ReadinessReason, in its order: the value's name without
 * READINESS_REASON_, in lower case. The one place the gateway maps them.
 */
const CODES: Record<Exclude<allocationV1.ReadinessReason, allocationV1.ReadinessReason.UNSPECIFIED>, string> = {
  [ReadinessReason.MERCHANT_INACTIVE]: "merchant_inactive",
  [ReadinessReason.OPERATING_PROFILE_MISSING]: "operating_profile_missing",
  [ReadinessReason.PAYIN_NOT_ALLOWED]: "payin_not_allowed",
  [ReadinessReason.ASSET_NOT_CONFIGURED]: "asset_not_configured",
  [ReadinessReason.WALLET_NOT_READY]: "wallet_not_ready",
  [ReadinessReason.ALLOCATOR_NOT_READY]: "allocator_not_ready",
  [ReadinessReason.PROVIDER_NOT_READY]: "provider_not_ready",
};

/** Every readiness reason code, in the contract's order (the OpenAPI document's enum). */
export const READINESS_REASON_CODES: readonly string[] = Object.entries(CODES)
  .sort(([a], [b]) => Number(a) - Number(b))
  .map(([, code]) => code);

/**
 * A pair's failing reasons as the API shows them. From the enum values; from
 * the lower-case codes the allocation service also sends when it sent no
 * values or one this gateway does not know (another version of allocation).
 */
export function pairReasons(pair: allocationV1.PairReadiness): string[] {
  const codes = pair.reasonCodes.map((value) => CODES[value as keyof typeof CODES]);
  if (codes.length === 0 || codes.some((code) => code === undefined)) return [...pair.reasons];
  return codes;
}
