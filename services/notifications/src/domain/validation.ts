import { DomainError } from "@payin/errors";
import { EVENT_TYPES, isEventType, type EventType } from "@payin/events";
import { displayTextProblem } from "@payin/http/text";
import { isUuid } from "@payin/ids";
import { NotificationsReason } from "./reasons.js";

/** Largest page a list operation answers. */
export const MAX_PAGE_SIZE = 100;
/** Longest description of an endpoint, in characters. */
export const MAX_DESCRIPTION_LENGTH = 200;
/** The test event's type: made by SendTestEvent alone, never subscribed to, never listed. */
export const TEST_EVENT_TYPE: EventType = "webhook.test";
/** The types an endpoint can subscribe to and a listing can filter by. */
export const SUBSCRIBABLE_TYPES: readonly EventType[] = EVENT_TYPES.filter((type) => type !== TEST_EVENT_TYPE);

/** Throws INVALID_ARGUMENT with a message safe to show a client. */
export function invalid(message: string, reason: NotificationsReason = NotificationsReason.InvalidArgument): never {
  throw new DomainError(reason, message);
}

/** A uuid argument; INVALID_ARGUMENT when malformed. */
export function checkUuid(field: string, value: string): string {
  if (!isUuid(value)) invalid(`${field} must be a lower-case uuid`);
  return value;
}

/** The merchant a merchant-scoped call names. */
export function checkMerchantUuid(value: string): string {
  return checkUuid("merchant_uuid", value);
}

/** A page size: 1 to 100 (the gateway applies its default). */
export function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) invalid(`limit must be 1 to ${MAX_PAGE_SIZE}`);
  return limit;
}

/**
 * Event types an endpoint subscribes to (empty: every type): each a type of
 * the catalogue but webhook.test, none twice.
 */
export function checkSubscribedTypes(types: readonly string[]): string[] {
  const reason = NotificationsReason.WebhookEventTypesInvalid;
  if (types.length > SUBSCRIBABLE_TYPES.length) invalid(`event_types has more entries than there are event types (${SUBSCRIBABLE_TYPES.length})`, reason);
  const seen = new Set<string>();
  for (const type of types) {
    if (!isEventType(type) || type === TEST_EVENT_TYPE) invalid(`event_types: "${clip(type)}" is not an event type (one of ${SUBSCRIBABLE_TYPES.join(", ")})`, reason);
    if (seen.has(type)) invalid(`event_types names ${type} twice`, reason);
    seen.add(type);
  }
  return [...types];
}

/** Types a listing filters by: known, listable types. */
export function checkFilterTypes(types: readonly string[]): string[] {
  if (types.length > SUBSCRIBABLE_TYPES.length) invalid(`types has more entries than there are event types (${SUBSCRIBABLE_TYPES.length})`);
  for (const type of types) {
    if (!isEventType(type) || type === TEST_EVENT_TYPE) invalid(`types: "${clip(type)}" is not an event type (one of ${SUBSCRIBABLE_TYPES.join(", ")})`);
  }
  return [...new Set(types)];
}

/** An endpoint's description: up to 200 characters of display text. */
export function checkDescription(value: string): string {
  if ([...value].length > MAX_DESCRIPTION_LENGTH) invalid(`description must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
  if (value === "") return value;
  if (/[\u0000-\u001f\u007f]/.test(value)) invalid("description must not contain control characters");
  const problem = displayTextProblem(value);
  if (problem) invalid(`description ${problem}`);
  return value;
}

/** A value echoed in a message: short, and nothing but printable ASCII. */
export function clip(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, "?");
  return printable.length > 64 ? `${printable.slice(0, 64)}…` : printable;
}
