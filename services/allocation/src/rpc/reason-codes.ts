import { Code } from "@payin/rpc";
import { AllocationReason } from "../domain/reasons.js";

/** Status code of every allocation reason; the compiler keeps it complete. */
export const reasonCodes: Record<AllocationReason, Code> = {
  [AllocationReason.InvalidArgument]: Code.InvalidArgument,
  [AllocationReason.WalletXpubInvalid]: Code.InvalidArgument,
  [AllocationReason.WalletNotFound]: Code.NotFound,
  [AllocationReason.WalletNotReady]: Code.FailedPrecondition,
  [AllocationReason.WalletXpubInUse]: Code.FailedPrecondition,
  [AllocationReason.MerchantNotFound]: Code.NotFound,
  [AllocationReason.PayinNotReady]: Code.FailedPrecondition,
  [AllocationReason.Forbidden]: Code.PermissionDenied,
  [AllocationReason.MfaRequired]: Code.PermissionDenied,
};
