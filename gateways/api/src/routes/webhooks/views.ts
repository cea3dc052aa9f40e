/**
 * The public JSON of events, webhook endpoints and deliveries (docs/webhooks.md).
 * An event is its `data` object exactly as a webhook delivers it under `data`
 * (@payin/events eventData: id, type, version, created_at, merchant_uuid,
 * sequence and the resources), so the events API and the webhooks show one
 * shape. An endpoint's signing secret appears only in the create and rotate
 * answers (endpointWithSecretView); nothing else here can carry it.
 */
import type { notificationsV1 } from "@payin/proto";
import { isoFromTimestamp } from "@payin/rpc";

/** An event as the API answers it: the data object notifications keeps (JSON text, as delivered). */
export function eventView(e: notificationsV1.Event): Record<string, unknown> {
  const data: unknown = JSON.parse(e.dataJson);
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new Error(`notifications answered event ${e.eventUuid} whose data is not a JSON object`);
  return data as Record<string, unknown>;
}

/**
 * A page of events, oldest first: `next_after` is what to send as `after` for
 * the next page, and for polling once `has_more` is false: the last event's
 * id, or the `after` sent when the page is empty (null when there is none).
 */
export function eventListView(res: notificationsV1.ListEventsResponse, after: string) {
  const last = res.events.at(-1);
  return { data: res.events.map(eventView), has_more: res.hasMore, next_after: last?.eventUuid ?? (after || null) };
}

/** An endpoint, never its secret. `event_types` null: every type. */
export function endpointView(e: notificationsV1.WebhookEndpoint) {
  return {
    endpoint_uuid: e.endpointUuid,
    merchant_uuid: e.merchantUuid,
    url: e.url,
    event_types: e.eventTypes.length > 0 ? [...e.eventTypes] : null,
    description: e.description || null,
    enabled: e.enabled,
    disabled_reason: e.disabledReason || null,
    disabled_at: isoFromTimestamp(e.disabledAt),
    failing_since: isoFromTimestamp(e.failingSince),
    previous_secret_expires_at: isoFromTimestamp(e.previousSecretExpiresAt),
    created_at: isoFromTimestamp(e.createdAt),
    updated_at: isoFromTimestamp(e.updatedAt),
  };
}

/** The create and rotate answers: the endpoint and its new signing secret, shown this once. */
export function endpointWithSecretView(e: notificationsV1.WebhookEndpoint, secret: string) {
  if (!secret.startsWith("whsec_")) throw new Error("notifications answered a signing secret without its whsec_ prefix");
  return { ...endpointView(e), secret };
}

/** One attempt to deliver: `status_code` null when no answer came (timeout, refused address). */
export function attemptView(a: notificationsV1.DeliveryAttempt) {
  return {
    attempted_at: isoFromTimestamp(a.attemptedAt),
    status_code: a.statusCode === 0 ? null : a.statusCode,
    duration_ms: a.durationMs,
    response_excerpt: a.responseExcerpt || null,
    error: a.error || null,
  };
}

/** What became of one event for one endpoint, with every attempt (oldest first). */
export function deliveryView(d: notificationsV1.Delivery) {
  return {
    delivery_uuid: d.deliveryUuid,
    event_id: d.eventUuid,
    endpoint_uuid: d.endpointUuid,
    event_type: d.eventType,
    status: d.status,
    attempt_count: d.attemptCount,
    next_attempt_at: isoFromTimestamp(d.nextAttemptAt),
    created_at: isoFromTimestamp(d.createdAt),
    updated_at: isoFromTimestamp(d.updatedAt),
    attempts: d.attempts.map(attemptView),
  };
}

/** A page of deliveries, newest first: `next_before` is what to send as `before` for the next (older) page, null at the end. */
export function deliveryListView(res: notificationsV1.ListDeliveriesResponse) {
  const last = res.deliveries.at(-1);
  return { data: res.deliveries.map(deliveryView), has_more: res.hasMore, next_before: res.hasMore && last ? last.deliveryUuid : null };
}
