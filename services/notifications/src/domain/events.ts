import { DomainError } from "@payin/errors";
import { EVENT_TYPE_INFO, isEventType } from "@payin/events";
import { isUuid } from "@payin/ids";
import { retentionStart, type Deps } from "./deps.js";
import type { NewDelivery, StoredEvent, WebhookEndpoint } from "./model.js";
import { NotificationsReason } from "./reasons.js";
import { checkFilterTypes, checkLimit, checkMerchantUuid, checkUuid, clip, invalid, TEST_EVENT_TYPE } from "./validation.js";

/** Most events in one RecordEvents call. */
export const MAX_RECORD_BATCH = 1000;
/** Longest `data` JSON text of one event, in characters. */
export const MAX_EVENT_DATA_LENGTH = 256 * 1024;

/** An event as the service where it was born hands it over. */
export interface EventInput {
  eventUuid: string;
  merchantUuid: string;
  type: string;
  createdAt: Date | undefined;
  sequence: bigint;
  /** Absent or empty: none. */
  intentUuid?: string;
  checkoutUuid?: string;
  dataJson: string;
}

function eventInvalid(index: number, problem: string): never {
  invalid(`events[${index}]: ${problem}`, NotificationsReason.EventInvalid);
}

function optionalUuid(index: number, field: string, value: string | undefined): string | null {
  if (value === undefined || value === "") return null;
  if (!isUuid(value)) eventInvalid(index, `${field} must be a lower-case uuid`);
  return value;
}

/**
 * One handed-over event, checked: uuids, a type of the catalogue (webhook.test
 * is made here alone), the resource its type concerns named, a sequence from
 * 1, a creation time, and `data` a JSON object.
 */
export function checkEventInput(input: EventInput, index: number, recordedAt: Date): StoredEvent {
  if (!isUuid(input.eventUuid)) eventInvalid(index, "event_uuid must be a lower-case uuid");
  if (!isUuid(input.merchantUuid)) eventInvalid(index, "merchant_uuid must be a lower-case uuid");
  if (!isEventType(input.type) || input.type === TEST_EVENT_TYPE) eventInvalid(index, `type "${clip(input.type)}" is not an event type this service records`);
  if (!input.createdAt || Number.isNaN(input.createdAt.getTime())) eventInvalid(index, "created_at is required");
  if (input.sequence < 1n || input.sequence > BigInt(Number.MAX_SAFE_INTEGER)) eventInvalid(index, "sequence must be 1 or more");
  const intentUuid = optionalUuid(index, "intent_uuid", input.intentUuid);
  const checkoutUuid = optionalUuid(index, "checkout_uuid", input.checkoutUuid);
  const resource = EVENT_TYPE_INFO[input.type].resource;
  if (resource === "pay_in_intent" && intentUuid === null) eventInvalid(index, `intent_uuid is required for ${input.type}`);
  if (resource === "checkout" && checkoutUuid === null) eventInvalid(index, `checkout_uuid is required for ${input.type}`);
  if (input.dataJson.length > MAX_EVENT_DATA_LENGTH) eventInvalid(index, `data_json is longer than ${MAX_EVENT_DATA_LENGTH} characters`);
  let data: unknown;
  try {
    data = JSON.parse(input.dataJson);
  } catch {
    eventInvalid(index, "data_json is not JSON");
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) eventInvalid(index, "data_json must be a JSON object");
  return {
    eventUuid: input.eventUuid,
    merchantUuid: input.merchantUuid,
    type: input.type,
    sequence: Number(input.sequence),
    intentUuid,
    checkoutUuid,
    createdAt: input.createdAt,
    recordedAt,
    data: input.dataJson,
    test: false,
  };
}

/** Whether `endpoint` receives events of `type` (an empty list: every type but the test event, which goes to one endpoint only). */
export function subscribes(endpoint: Pick<WebhookEndpoint, "eventTypes">, type: string): boolean {
  if (type === TEST_EVENT_TYPE) return false;
  return endpoint.eventTypes.length === 0 || endpoint.eventTypes.includes(type);
}

/** The deliveries new events get: one per enabled endpoint of the event's merchant that subscribes to its type, due at once. */
export function plannedDeliveries(events: readonly StoredEvent[], endpoints: readonly WebhookEndpoint[], now: Date, newUuid: () => string): NewDelivery[] {
  const byMerchant = new Map<string, WebhookEndpoint[]>();
  for (const endpoint of endpoints) {
    if (!endpoint.enabled) continue;
    const list = byMerchant.get(endpoint.merchantUuid) ?? [];
    list.push(endpoint);
    byMerchant.set(endpoint.merchantUuid, list);
  }
  const planned: NewDelivery[] = [];
  for (const event of events) {
    if (event.test) continue;
    for (const endpoint of byMerchant.get(event.merchantUuid) ?? []) {
      if (!subscribes(endpoint, event.type)) continue;
      planned.push({
        deliveryUuid: newUuid(),
        eventUuid: event.eventUuid,
        endpointUuid: endpoint.endpointUuid,
        merchantUuid: event.merchantUuid,
        eventType: event.type,
        nextAttemptAt: now,
        createdAt: now,
      });
    }
  }
  return planned;
}

/**
 * Takes a batch of events: all checked first (one malformed event refuses the
 * batch, nothing written), then in one transaction the new ones are kept
 * (one already kept changes nothing) with the next positions of their
 * merchants (the listing's order), each gets its deliveries, and each
 * delivery its job. Answers how many events were new.
 */
export async function recordEvents(deps: Deps, inputs: readonly EventInput[]): Promise<number> {
  if (inputs.length === 0 || inputs.length > MAX_RECORD_BATCH) invalid(`events must hold 1 to ${MAX_RECORD_BATCH} events`, NotificationsReason.EventInvalid);
  const now = deps.now();
  const unique = new Map<string, StoredEvent>();
  inputs.forEach((input, index) => {
    const event = checkEventInput(input, index, now);
    if (!unique.has(event.eventUuid)) unique.set(event.eventUuid, event);
  });
  const events = [...unique.values()];
  return deps.uow.transaction(async (stores) => {
    const fresh = await stores.events.insertNew(events);
    if (fresh.length === 0) return 0;
    const endpoints = await stores.endpoints.enabledOf([...new Set(fresh.map((e) => e.merchantUuid))]);
    const planned = plannedDeliveries(fresh, endpoints, now, deps.newUuid);
    if (planned.length > 0) {
      const made = await stores.deliveries.insertNew(planned);
      await stores.jobs.enqueue(made.map((d) => ({ deliveryUuid: d.deliveryUuid, runAt: d.nextAttemptAt ?? now })));
    }
    return fresh.length;
  });
}

/**
 * A merchant's events in the order they were recorded, after a cursor (an
 * event id), of some types or one intent, kept within the retention period.
 */
export async function listEvents(
  deps: Deps,
  input: { merchantUuid: string; after: string; types: readonly string[]; intentUuid: string | undefined; limit: number },
): Promise<{ events: StoredEvent[]; hasMore: boolean }> {
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  const after = input.after === "" ? null : checkUuid("after", input.after);
  const types = checkFilterTypes(input.types);
  const intentUuid = input.intentUuid === undefined || input.intentUuid === "" ? null : checkUuid("intent_uuid", input.intentUuid);
  const limit = checkLimit(input.limit);
  const rows = await deps.uow.read().events.list({ merchantUuid, after, types, intentUuid, since: retentionStart(deps, deps.now()), limit: limit + 1 });
  return { events: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** One listed event of the merchant. EVENT_NOT_FOUND for another merchant's, a test event, one past retention, or a malformed uuid. */
export async function getEvent(deps: Deps, merchantUuid: string, eventUuid: string): Promise<StoredEvent> {
  checkMerchantUuid(merchantUuid);
  const event = isUuid(eventUuid) ? await deps.uow.read().events.get(merchantUuid, eventUuid, retentionStart(deps, deps.now()), false) : null;
  if (!event) throw eventNotFound();
  return event;
}

export function eventNotFound(): DomainError {
  return new DomainError(NotificationsReason.EventNotFound, "event not found");
}

/** Deletes the events past the retention period, `batch` at a time (their deliveries and attempts with them); answers how many. */
export async function purgeExpiredEvents(deps: Deps, batch: number): Promise<number> {
  const before = retentionStart(deps, deps.now());
  let total = 0;
  for (;;) {
    const deleted = await deps.uow.read().events.purge(before, batch);
    total += deleted;
    if (deleted < batch) return total;
  }
}
