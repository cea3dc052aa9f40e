import { create } from "@bufbuild/protobuf";
import { allocationV1, READINESS_REASON, type ReadinessReasonName, type SameNames } from "@payin/proto";
import { toTimestamp } from "@payin/rpc";
import type { ReadinessReason } from "../domain/readiness.js";
import type { Wallet } from "../domain/wallet.js";

/** The allocation service's domain values as its contract's messages. */

const { WalletSchema } = allocationV1;

// The reasons @payin/eligibility decides are the contract's ReadinessReason
// names: this fails to compile when either side gains a reason alone (the
// domain's readiness test checks their order).
const _reasonNames: SameNames<ReadinessReason, ReadinessReasonName> = true;

/** Each readiness reason as the contract's enum value (GetReadiness's reason_codes). */
export const READINESS_REASON_TO_PB: Readonly<Record<ReadinessReason, allocationV1.ReadinessReason>> = READINESS_REASON.byName;

export function walletToPb(w: Wallet): allocationV1.Wallet {
  return create(WalletSchema, {
    merchantUuid: w.merchantUuid,
    xpub: w.xpub,
    nextIndex: w.nextIndex,
    createdAt: toTimestamp(w.createdAt),
    updatedAt: toTimestamp(w.updatedAt),
  });
}
