/**
 * What the events and webhook-endpoint routes read, checked before any call:
 * query parameters and JSON bodies, strictly (an unknown field or parameter,
 * a wrong type, a value out of its range is 400 VALIDATION_ERROR naming it).
 * Pure: no Koa, no service; the routes (routes.ts) call these
 * after authorising, and the OpenAPI document reads the same limits.
 * What only the notifications service can decide — whether a URL is https and
 * resolves to a public address, the merchant's endpoint limit — is its answer.
 */
import { EVENT_TYPES, type EventType } from "@payin/events";
import { ApiError, charLength, displayTextProblem, intParam, onlyFields, validationError, type Body } from "@payin/http";
import { isUuidAnyCase } from "@payin/ids";
import { parseDateTime } from "../date-time.js";

/** The longest endpoint URL, in characters (the notifications service refuses longer ones too). */
export const MAX_WEBHOOK_URL_LENGTH = 2_048;
/** The longest endpoint description, in characters. */
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 200;
/** The longest grace period of a secret rotation: 7 days, in seconds. */
export const MAX_GRACE_SECONDS = 7 * 24 * 3_600;
/** The grace period when a rotation names none (the notifications service's default). */
export const DEFAULT_GRACE_SECONDS = 24 * 3_600;
/** The test event's type: sent by POST …/test only, never subscribed to, never listed. */
export const TEST_EVENT_TYPE: EventType = "webhook.test";
/** The types an endpoint can subscribe to and the events API lists: every type but the test event's. */
export const LISTED_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter((type) => type !== TEST_EVENT_TYPE);
/** A delivery's status, as the deliveries list filters by it. */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;

export const CREATE_ENDPOINT_FIELDS = ["url", "event_types", "description"] as const;
export const UPDATE_ENDPOINT_FIELDS = ["url", "event_types", "description", "enabled"] as const;
export const ROTATE_SECRET_FIELDS = ["grace_seconds"] as const;
export const RESEND_EVENT_FIELDS = ["endpoint_uuid"] as const;
export const RESEND_FAILED_FIELDS = ["since"] as const;
export const EVENTS_QUERY = ["after", "type", "intent_uuid", "limit"] as const;
export const DELIVERIES_QUERY = ["status", "before", "limit"] as const;

/** A URL the service would refuse too (WEBHOOK_URL_INVALID, as its own refusals). */
const urlInvalid = (message: string) => new ApiError("WEBHOOK_URL_INVALID", message);
/** Event types an endpoint cannot subscribe to (WEBHOOK_EVENT_TYPES_INVALID, as the service's own refusals). */
const typesInvalid = (message: string) => new ApiError("WEBHOOK_EVENT_TYPES_INVALID", message);

const KNOWN_TYPES_HINT = `known types: ${LISTED_EVENT_TYPES.join(", ")}`;

/** A value echoed in a message: printable ASCII only, at most 64 characters. */
function clip(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, "?");
  return printable.length > 64 ? `${printable.slice(0, 64)}…` : printable;
}

function isPresent(body: Body, name: string): boolean {
  return body[name] !== undefined && body[name] !== null;
}

/** `url`: a string of 1 to MAX_WEBHOOK_URL_LENGTH characters (its form and address are the service's to judge). */
function urlField(value: unknown): string {
  if (typeof value !== "string") throw validationError("url must be a string");
  const length = charLength(value);
  if (length === 0) throw urlInvalid("url must not be empty");
  if (length > MAX_WEBHOOK_URL_LENGTH) throw urlInvalid(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  return value;
}

/**
 * `event_types`: a non-empty list of distinct known types (the test event's
 * excepted). Leaving it out, or null, means every type; an empty list is
 * refused rather than guessed at.
 */
function eventTypesField(value: unknown): EventType[] {
  if (!Array.isArray(value)) throw validationError("event_types must be an array of event types, or null for every type");
  if (value.length === 0) throw typesInvalid("event_types must name at least one type; leave it out (or send null) to receive every type");
  if (value.length > LISTED_EVENT_TYPES.length) throw typesInvalid(`event_types must have at most ${LISTED_EVENT_TYPES.length} items (there are no more types)`);
  const seen = new Set<string>();
  value.forEach((item: unknown, i) => {
    if (typeof item !== "string") throw validationError(`event_types[${i}] must be a string`);
    if (item === TEST_EVENT_TYPE) throw typesInvalid(`event_types[${i}]: ${TEST_EVENT_TYPE} cannot be subscribed to; POST …/webhook-endpoints/{endpoint_uuid}/test sends one`);
    if (!(LISTED_EVENT_TYPES as readonly string[]).includes(item)) throw typesInvalid(`event_types[${i}] "${clip(item)}" is not an event type; ${KNOWN_TYPES_HINT}`);
    if (seen.has(item)) throw typesInvalid(`event_types names ${item} twice; name each type once`);
    seen.add(item);
  });
  return value as EventType[];
}

/** `description`: up to MAX_WEBHOOK_DESCRIPTION_LENGTH characters of text people read; null or "" for none. */
function descriptionField(value: unknown): string {
  if (value === null) return "";
  if (typeof value !== "string") throw validationError("description must be a string or null");
  if (charLength(value) > MAX_WEBHOOK_DESCRIPTION_LENGTH) throw validationError(`description must be at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters`);
  if (/[\u0000-\u001f\u007f]/.test(value)) throw validationError("description must not contain control characters (line breaks included)");
  const problem = displayTextProblem(value);
  if (problem) throw validationError(`description ${problem}`);
  return value;
}

export interface CreateEndpointInput {
  url: string;
  /** Empty: every type. */
  eventTypes: EventType[];
  /** Empty: none. */
  description: string;
}

/** POST …/webhook-endpoints: `{url, event_types?, description?}`. */
export function parseCreateEndpoint(body: Body): CreateEndpointInput {
  onlyFields(body, CREATE_ENDPOINT_FIELDS);
  if (!isPresent(body, "url")) throw validationError("url is required");
  return {
    url: urlField(body.url),
    eventTypes: isPresent(body, "event_types") ? eventTypesField(body.event_types) : [],
    description: body.description === undefined ? "" : descriptionField(body.description),
  };
}

export interface UpdateEndpointInput {
  url?: string;
  /** Set to replace the types; an empty list: every type. */
  eventTypes?: { types: EventType[] };
  /** "": remove it. */
  description?: string;
  enabled?: boolean;
}

/**
 * PATCH …/webhook-endpoints/{uuid}: any of `url`, `event_types` (null: every
 * type), `description` (null or "": none) and `enabled`; at least one. A field
 * left out is left as it is.
 */
export function parseUpdateEndpoint(body: Body): UpdateEndpointInput {
  onlyFields(body, UPDATE_ENDPOINT_FIELDS);
  if (Object.keys(body).length === 0) throw validationError(`name at least one field to change: ${UPDATE_ENDPOINT_FIELDS.join(", ")}`);
  const out: UpdateEndpointInput = {};
  if (body.url !== undefined) {
    if (body.url === null) throw validationError("url cannot be removed; send the new URL");
    out.url = urlField(body.url);
  }
  if (body.event_types !== undefined) out.eventTypes = { types: body.event_types === null ? [] : eventTypesField(body.event_types) };
  if (body.description !== undefined) out.description = descriptionField(body.description);
  if (body.enabled !== undefined) {
    if (typeof body.enabled !== "boolean") throw validationError("enabled must be true or false");
    out.enabled = body.enabled;
  }
  return out;
}

/** POST …/rotate-secret: `{grace_seconds?}`, a whole number of seconds from 0 to 7 days (default 24 hours). */
export function parseRotateSecret(body: Body): { graceSeconds?: number } {
  onlyFields(body, ROTATE_SECRET_FIELDS);
  if (!isPresent(body, "grace_seconds")) return {};
  const value = body.grace_seconds;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_GRACE_SECONDS) {
    throw validationError(`grace_seconds must be a whole number from 0 to ${MAX_GRACE_SECONDS} (7 days)`);
  }
  return { graceSeconds: value };
}

/** POST …/events/{event_id}/resend: `{endpoint_uuid?}` (lower-cased; "" for every subscribed endpoint). */
export function parseResendEvent(body: Body): { endpointUuid: string } {
  onlyFields(body, RESEND_EVENT_FIELDS);
  if (!isPresent(body, "endpoint_uuid")) return { endpointUuid: "" };
  const value = body.endpoint_uuid;
  if (typeof value !== "string" || !isUuidAnyCase(value)) throw validationError("endpoint_uuid must be a uuid");
  return { endpointUuid: value.toLowerCase() };
}

/** POST …/resend-failed: `{since}`, an RFC 3339 date-time in UTC. */
export function parseResendFailed(body: Body): { since: Date } {
  onlyFields(body, RESEND_FAILED_FIELDS);
  if (!isPresent(body, "since")) throw validationError("since is required");
  const since = typeof body.since === "string" ? parseDateTime(body.since) : null;
  if (!since) throw validationError("since must be an RFC 3339 date-time in UTC, e.g. 2030-01-01T00:00:00Z");
  return { since };
}

export interface EventsQuery {
  /** "" for the oldest kept. */
  after: string;
  /** Empty: every type. */
  types: EventType[];
  intentUuid?: string;
  limit: number;
}

/**
 * GET …/events: `after` (an event id), `type` (one type or a comma-separated
 * list), `intent_uuid`, `limit` (1 to 100, default 20). Each parameter once.
 */
export function parseEventsQuery(query: Readonly<Record<string, string>>): EventsQuery {
  const limit = intParam(query, "limit", 20, 1, 100);
  const after = query.after;
  if (after !== undefined && !isUuidAnyCase(after)) throw validationError("after must be an event id (a uuid)");
  const intentUuid = query.intent_uuid;
  if (intentUuid !== undefined && !isUuidAnyCase(intentUuid)) throw validationError("intent_uuid must be a uuid");
  const types: EventType[] = [];
  if (query.type !== undefined) {
    for (const item of query.type.split(",")) {
      if (item === "") throw validationError("type must be one event type or a comma-separated list of them, without empty items");
      if (item === TEST_EVENT_TYPE) throw validationError(`type: ${TEST_EVENT_TYPE} events are sent to one endpoint only and never listed`);
      if (!(LISTED_EVENT_TYPES as readonly string[]).includes(item)) throw validationError(`type "${clip(item)}" is not an event type; ${KNOWN_TYPES_HINT}`);
      if (!types.includes(item as EventType)) types.push(item as EventType);
    }
  }
  return { after: after?.toLowerCase() ?? "", types, ...(intentUuid !== undefined ? { intentUuid: intentUuid.toLowerCase() } : {}), limit };
}

export interface DeliveriesQuery {
  /** "" for every status. */
  status: string;
  /** "" for the newest. */
  before: string;
  limit: number;
}

/** GET …/deliveries: `status` (pending, succeeded, failed), `before` (a delivery uuid), `limit` (1 to 100, default 20). */
export function parseDeliveriesQuery(query: Readonly<Record<string, string>>): DeliveriesQuery {
  const limit = intParam(query, "limit", 20, 1, 100);
  const status = query.status;
  if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status)) throw validationError(`status must be one of: ${DELIVERY_STATUSES.join(", ")}`);
  const before = query.before;
  if (before !== undefined && !isUuidAnyCase(before)) throw validationError("before must be a delivery uuid");
  return { status: status ?? "", before: before?.toLowerCase() ?? "", limit };
}
