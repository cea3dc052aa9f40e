import { Code } from "@payin/rpc";
import { IdentityReason } from "../domain/reasons.js";

/** Status code of every identity reason; the compiler keeps it complete. */
export const reasonCodes: Record<IdentityReason, Code> = {
  [IdentityReason.InvalidArgument]: Code.InvalidArgument,
  [IdentityReason.CredentialAlreadyActive]: Code.FailedPrecondition,
  [IdentityReason.InvalidToken]: Code.Unauthenticated,
};
