import { Code } from "@payin/rpc";
import { PayinsReason } from "../domain/reasons.js";

/** Status code of every payins reason; the compiler keeps it complete. */
export const reasonCodes: Record<PayinsReason, Code> = {
  [PayinsReason.ValidationError]: Code.InvalidArgument,
  [PayinsReason.IdempotencyKeyInvalid]: Code.InvalidArgument,
  [PayinsReason.IdempotencyKeyReused]: Code.InvalidArgument,
  [PayinsReason.IdempotencyKeyInUse]: Code.Aborted,
  [PayinsReason.MerchantNotActive]: Code.FailedPrecondition,
  [PayinsReason.PayinNotAllowed]: Code.PermissionDenied,
  [PayinsReason.OperatingProfileMissing]: Code.FailedPrecondition,
  [PayinsReason.PayinNotReady]: Code.FailedPrecondition,
  [PayinsReason.PayInIntentNotFound]: Code.NotFound,
};
