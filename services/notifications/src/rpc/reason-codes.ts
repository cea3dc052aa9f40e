import { Code } from "@payin/rpc";
import { NotificationsReason } from "../domain/reasons.js";

/** Status code of every notifications reason; the compiler keeps it complete. */
export const reasonCodes: Record<NotificationsReason, Code> = {
  [NotificationsReason.InvalidArgument]: Code.InvalidArgument,
  [NotificationsReason.EventInvalid]: Code.InvalidArgument,
  [NotificationsReason.EventNotFound]: Code.NotFound,
  [NotificationsReason.WebhookEndpointNotFound]: Code.NotFound,
  [NotificationsReason.WebhookUrlInvalid]: Code.InvalidArgument,
  [NotificationsReason.WebhookEventTypesInvalid]: Code.InvalidArgument,
  [NotificationsReason.WebhookEndpointLimit]: Code.FailedPrecondition,
  [NotificationsReason.WebhookEndpointDisabled]: Code.FailedPrecondition,
  [NotificationsReason.Forbidden]: Code.PermissionDenied,
};
