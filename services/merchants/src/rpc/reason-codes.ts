import { Code } from "@payin/rpc";
import { MerchantsReason } from "../domain/reasons.js";

/** Status code of every merchants reason; the compiler keeps it complete. */
export const reasonCodes: Record<MerchantsReason, Code> = {
  [MerchantsReason.InvalidArgument]: Code.InvalidArgument,
  [MerchantsReason.MerchantNotFound]: Code.NotFound,
  [MerchantsReason.TransitionNotAllowed]: Code.FailedPrecondition,
  [MerchantsReason.MerchantClosed]: Code.FailedPrecondition,
  [MerchantsReason.RuleUnchanged]: Code.FailedPrecondition,
  [MerchantsReason.PolicyUnchanged]: Code.FailedPrecondition,
  [MerchantsReason.ProviderNotFound]: Code.NotFound,
  [MerchantsReason.ProviderNameTaken]: Code.AlreadyExists,
  [MerchantsReason.ConnectionExists]: Code.FailedPrecondition,
  [MerchantsReason.ConnectionNotFound]: Code.NotFound,
  [MerchantsReason.RuleNotFound]: Code.NotFound,
  [MerchantsReason.PolicyNotFound]: Code.NotFound,
  [MerchantsReason.BindingNotFound]: Code.NotFound,
  [MerchantsReason.MemberNotFound]: Code.NotFound,
  [MerchantsReason.SecretReferenceUnchanged]: Code.FailedPrecondition,
  [MerchantsReason.ConcurrentChange]: Code.Aborted,
  [MerchantsReason.Forbidden]: Code.PermissionDenied,
};
