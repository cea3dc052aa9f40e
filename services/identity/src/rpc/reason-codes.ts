import { Code } from "@payin/rpc";
import { IdentityReason } from "../domain/reasons.js";

/** Status code of every identity reason; the compiler keeps it complete. */
export const reasonCodes: Record<IdentityReason, Code> = {
  [IdentityReason.InvalidArgument]: Code.InvalidArgument,
  [IdentityReason.CredentialAlreadyActive]: Code.FailedPrecondition,
  [IdentityReason.InvalidToken]: Code.Unauthenticated,
  [IdentityReason.InvalidCredentials]: Code.Unauthenticated,
  [IdentityReason.RateLimited]: Code.ResourceExhausted,
  [IdentityReason.Forbidden]: Code.PermissionDenied,
  [IdentityReason.MfaRequired]: Code.PermissionDenied,
  [IdentityReason.MfaRecentRequired]: Code.PermissionDenied,
  [IdentityReason.IdentityNotFound]: Code.NotFound,
  [IdentityReason.IdentityEmailTaken]: Code.AlreadyExists,
  [IdentityReason.IdentityAlreadyDisabled]: Code.FailedPrecondition,
  [IdentityReason.IdentityAlreadyLocked]: Code.FailedPrecondition,
  [IdentityReason.IdentityAlreadyActive]: Code.FailedPrecondition,
  [IdentityReason.RoleNotHeld]: Code.FailedPrecondition,
  [IdentityReason.LastPlatformAdmin]: Code.FailedPrecondition,
  [IdentityReason.AdminExists]: Code.FailedPrecondition,
  [IdentityReason.SessionNotFound]: Code.NotFound,
  [IdentityReason.TotpAlreadyEnrolled]: Code.FailedPrecondition,
  [IdentityReason.TotpNotPending]: Code.FailedPrecondition,
  [IdentityReason.TotpCodeInvalid]: Code.InvalidArgument,
  [IdentityReason.NoActiveCredential]: Code.FailedPrecondition,
  [IdentityReason.CredentialAlreadyRevoked]: Code.FailedPrecondition,
  [IdentityReason.CredentialNotFound]: Code.NotFound,
};
