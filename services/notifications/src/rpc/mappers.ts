import type { DescMessage, MessageInitShape } from "@bufbuild/protobuf";
import type { notificationsV1 } from "@payin/proto";
import { toTimestamp } from "@payin/rpc";
import type { DeliveryWithAttempts, StoredEvent, WebhookEndpoint } from "../domain/model.js";

type Pb<S extends DescMessage> = MessageInitShape<S>;

export function eventToPb(e: StoredEvent): Pb<typeof notificationsV1.EventSchema> {
  return {
    eventUuid: e.eventUuid,
    merchantUuid: e.merchantUuid,
    type: e.type,
    createdAt: toTimestamp(e.createdAt),
    sequence: BigInt(e.sequence),
    intentUuid: e.intentUuid ?? undefined,
    checkoutUuid: e.checkoutUuid ?? undefined,
    dataJson: e.data,
  };
}

export function endpointToPb(e: WebhookEndpoint): Pb<typeof notificationsV1.WebhookEndpointSchema> {
  return {
    endpointUuid: e.endpointUuid,
    merchantUuid: e.merchantUuid,
    url: e.url,
    eventTypes: e.eventTypes,
    description: e.description,
    enabled: e.enabled,
    disabledReason: e.disabledReason ?? "",
    disabledAt: e.disabledAt ? toTimestamp(e.disabledAt) : undefined,
    failingSince: e.failingSince ? toTimestamp(e.failingSince) : undefined,
    previousSecretExpiresAt: e.previousSecretExpiresAt ? toTimestamp(e.previousSecretExpiresAt) : undefined,
    createdAt: toTimestamp(e.createdAt),
    updatedAt: toTimestamp(e.updatedAt),
  };
}

export function deliveryToPb(d: DeliveryWithAttempts): Pb<typeof notificationsV1.DeliverySchema> {
  return {
    deliveryUuid: d.deliveryUuid,
    eventUuid: d.eventUuid,
    endpointUuid: d.endpointUuid,
    eventType: d.eventType,
    status: d.status,
    attemptCount: d.attemptCount,
    nextAttemptAt: d.status === "pending" && d.nextAttemptAt ? toTimestamp(d.nextAttemptAt) : undefined,
    createdAt: toTimestamp(d.createdAt),
    updatedAt: toTimestamp(d.updatedAt),
    attempts: d.attempts.map((a) => ({
      attemptedAt: toTimestamp(a.attemptedAt),
      statusCode: a.statusCode,
      durationMs: a.durationMs,
      responseExcerpt: a.responseExcerpt,
      error: a.error,
    })),
  };
}
