import { create } from "@bufbuild/protobuf";
import { allocationV1 } from "@payin/proto";
import { toTimestamp } from "@payin/rpc";
import type { ReadinessReason } from "../domain/readiness.js";
import type { Wallet } from "../domain/wallet.js";

/** The allocation service's domain values as its contract's messages. */

const { ReadinessReason: Pb, WalletSchema } = allocationV1;

/** Each readiness reason as the contract's enum value (GetReadiness's reason_codes). */
export const READINESS_REASON_TO_PB: Record<ReadinessReason, allocationV1.ReadinessReason> = {
  merchant_inactive: Pb.MERCHANT_INACTIVE,
  operating_profile_missing: Pb.OPERATING_PROFILE_MISSING,
  payin_not_allowed: Pb.PAYIN_NOT_ALLOWED,
  asset_not_configured: Pb.ASSET_NOT_CONFIGURED,
  wallet_not_ready: Pb.WALLET_NOT_READY,
  allocator_not_ready: Pb.ALLOCATOR_NOT_READY,
  provider_not_ready: Pb.PROVIDER_NOT_READY,
};

export function walletToPb(w: Wallet): allocationV1.Wallet {
  return create(WalletSchema, {
    merchantUuid: w.merchantUuid,
    xpub: w.xpub,
    nextIndex: w.nextIndex,
    createdAt: toTimestamp(w.createdAt),
    updatedAt: toTimestamp(w.updatedAt),
  });
}
