import { READINESS_REASON_NAMES } from "@payin/proto";

/**
 * The API's readiness reason codes (docs/platform-api.md): the allocation
 * contract's ReadinessReason names, in its order (@payin/proto derives them;
 * its readinessReasonNames reads a pair's).
 */
export const READINESS_REASON_CODES: readonly string[] = READINESS_REASON_NAMES;
