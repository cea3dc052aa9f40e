/** Every reason the notifications service fails with. */
export enum NotificationsReason {
  InvalidArgument = "INVALID_ARGUMENT",
  /** An event handed over by RecordEvents is malformed (the batch is refused whole). */
  EventInvalid = "EVENT_INVALID",
  /** No such event of this merchant (or it is older than the retention period). */
  EventNotFound = "EVENT_NOT_FOUND",
  /** No such webhook endpoint of this merchant. */
  WebhookEndpointNotFound = "WEBHOOK_ENDPOINT_NOT_FOUND",
  /** A webhook URL the service will not send to (scheme, credentials, or an address that is not public). */
  WebhookUrlInvalid = "WEBHOOK_URL_INVALID",
  /** An event type a webhook endpoint cannot subscribe to (unknown, repeated, or webhook.test). */
  WebhookEventTypesInvalid = "WEBHOOK_EVENT_TYPES_INVALID",
  /** The merchant already has as many webhook endpoints as it may. */
  WebhookEndpointLimit = "WEBHOOK_ENDPOINT_LIMIT",
  /** The endpoint is disabled: nothing is sent to it until it is enabled again. */
  WebhookEndpointDisabled = "WEBHOOK_ENDPOINT_DISABLED",
  /** Nothing vouches for a person making the change: no assertion from identity where one is needed, or one that does not verify. */
  Forbidden = "FORBIDDEN",
}
