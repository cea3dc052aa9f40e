import { Code } from "@payin/rpc";
import { MerchantsReason } from "../domain/reasons.js";

/** Status code of every merchants reason; the compiler keeps it complete. */
export const reasonCodes: Record<MerchantsReason, Code> = {
  [MerchantsReason.InvalidArgument]: Code.InvalidArgument,
  [MerchantsReason.MerchantNotFound]: Code.NotFound,
  [MerchantsReason.TransitionNotAllowed]: Code.FailedPrecondition,
};
