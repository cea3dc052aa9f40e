import { Code } from "@payin/rpc";
import { CheckoutReason, PayinsReason } from "../domain/reasons.js";

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

/**
 * Status code of every checkout reason. Not in the public catalogue: a gateway
 * shows them under the generic code of their status (see CheckoutReason).
 */
export const checkoutReasonCodes: Record<CheckoutReason, Code> = {
  [CheckoutReason.CheckoutNotFound]: Code.NotFound,
  [CheckoutReason.CheckoutNotDisablable]: Code.FailedPrecondition,
  [CheckoutReason.CheckoutUnavailable]: Code.FailedPrecondition,
};

/** Every reason the service fails with: what its error interceptor maps. */
export const serviceReasonCodes: Record<PayinsReason | CheckoutReason, Code> = { ...reasonCodes, ...checkoutReasonCodes };
