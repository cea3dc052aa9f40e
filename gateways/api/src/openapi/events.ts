/**
 * The OpenAPI document's part for events and webhooks: the schema of every
 * event type's data and webhook payload, read from the one catalogue
 * (@payin/events EVENT_TYPE_INFO: a type added there is documented here with
 * no edit), the webhook endpoint and delivery resources, and the top-level
 * `webhooks` section (OpenAPI 3.1) with the three Standard Webhooks headers.
 * The resources an event carries are the API's own components (PayInIntent,
 * PayInTransfer) and the merchant's view of a checkout (Checkout), built by
 * the same functions (@payin/events views).
 */
import { DEADLINE_OUTCOMES, EVENT_TYPE_INFO, EVENT_TYPES, TRANSFER_FLAGS, type EventType } from "@payin/events";
import { CHECKOUT_STATE_NAMES } from "@payin/proto";
import {
  DEFAULT_GRACE_SECONDS, DELIVERY_STATUSES, LISTED_EVENT_TYPES, MAX_GRACE_SECONDS, MAX_WEBHOOK_DESCRIPTION_LENGTH, MAX_WEBHOOK_URL_LENGTH, TEST_EVENT_TYPE,
} from "../routes/webhooks/input.js";
import { asset, bool, dateTime, int, jurisdiction, nullable, object, oneOf, rail, ref, str, uuid, type Schema } from "./schema.js";

/** `pay_in_intent.transfer_settled` → `PayInIntentTransferSettled`: the stem of a type's schema names. */
export function typeStem(type: EventType): string {
  return type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
}

/** The schema name of a type's event (the data object): `<Stem>Event`. */
export const eventSchemaName = (type: EventType) => `${typeStem(type)}Event`;
/** The schema name of a type's webhook payload (`{type, timestamp, data}`): `<Stem>Webhook`. */
export const webhookSchemaName = (type: EventType) => `${typeStem(type)}Webhook`;

/** What every event's data holds, whatever its type. */
function baseFields(type: EventType): Record<string, Schema> {
  const info = EVENT_TYPE_INFO[type];
  return {
    id: str({ format: "uuid", description: "the event id (UUIDv7): the webhook-id of every delivery of it, the same on every retry; deduplicate by it" }),
    type: str({ const: type }),
    version: int({ const: info.version, description: "the version of this type's data; it rises only when a receiver could notice the change (new fields do not raise it)" }),
    created_at: str({ format: "date-time", description: "when the change happened" }),
    merchant_uuid: uuid,
    sequence: int({
      minimum: 1,
      description:
        info.resource === "pay_in_intent"
          ? "per pay-in intent from 1, without gaps: sort an intent's events by it (delivery order is not promised)"
          : info.resource === "checkout"
            ? "per checkout from 1, without gaps: sort a checkout's events by it (delivery order is not promised)"
            : "1",
    }),
  };
}

/** A type's data: the base fields and what its resource and kind add. */
function eventDataSchema(type: EventType): Schema {
  const info = EVENT_TYPE_INFO[type];
  const fields = baseFields(type);
  const optional: string[] = [];
  if (info.resource === "pay_in_intent") fields.pay_in_intent = { ...ref("PayInIntent"), description: "the intent as a read showed it once the change was made" };
  if (info.resource === "checkout") fields.checkout = { ...ref("Checkout"), description: "the checkout as the merchant read it once the change was made" };
  if (info.withTransfer) fields.transfer = { ...ref("PayInTransfer"), description: "the transfer that caused the event, as the intent's transfers list shows it" };
  if (type === "pay_in_intent.transfer_flagged") fields.flag = oneOf(TRANSFER_FLAGS, { description: "why the transfer does not count" });
  if (type === "pay_in_intent.deadline_passed") {
    fields.outcome = oneOf(DEADLINE_OUTCOMES, { description: "unpaid: nothing had settled; underpaid: part of the amount had" });
    fields.received_amount = str({ description: "what had settled and counted by the deadline, canonical decimal" });
    optional.push("received_amount");
  }
  return { ...object(fields, optional), title: type, description: `${info.description} (data version ${info.version})` };
}

/** A type's webhook body, as Standard Webhooks has it. */
function webhookPayloadSchema(type: EventType): Schema {
  return {
    ...object({
      type: str({ const: type }),
      timestamp: str({ format: "date-time", description: "when the event happened (its created_at)" }),
      data: ref(eventSchemaName(type)),
    }),
    title: `${type} webhook`,
  };
}

const endpointFields = {
  endpoint_uuid: uuid,
  merchant_uuid: uuid,
  url: str({ maxLength: MAX_WEBHOOK_URL_LENGTH, description: "where deliveries are POSTed" }),
  event_types: nullable({
    type: "array",
    minItems: 1,
    uniqueItems: true,
    items: oneOf(LISTED_EVENT_TYPES),
    description: "the types it receives",
  }),
  description: nullable(str({ maxLength: MAX_WEBHOOK_DESCRIPTION_LENGTH })),
  enabled: bool({ description: "false: nothing is sent to it (a person disabled it, or the platform did: disabled_reason)" }),
  disabled_reason: nullable(
    oneOf(["gone", "failing"], { description: "why the platform disabled it: gone (it answered 410), failing (every delivery failed for 5 days); null when a person did, or when enabled" }),
  ),
  disabled_at: nullable(dateTime),
  failing_since: nullable({ ...dateTime, description: "since when every delivery to it has failed; null while it succeeds" }),
  previous_secret_expires_at: nullable({
    ...dateTime,
    description: "during a rotation's grace period: until when deliveries also carry a signature with the previous secret",
  }),
  created_at: dateTime,
  updated_at: dateTime,
};

const eventTypesRequest = (description: string): Schema =>
  nullable({ type: "array", minItems: 1, maxItems: LISTED_EVENT_TYPES.length, uniqueItems: true, items: oneOf(LISTED_EVENT_TYPES), description });

const descriptionRequest = nullable(
  str({ maxLength: MAX_WEBHOOK_DESCRIPTION_LENGTH, description: "for people: no control characters, bidirectional controls or zero-width characters; null or \"\" for none" }),
);

/** The components this part adds. */
export function eventSchemas(): Record<string, Schema> {
  const perType = Object.fromEntries(EVENT_TYPES.flatMap((type) => [[eventSchemaName(type), eventDataSchema(type)], [webhookSchemaName(type), webhookPayloadSchema(type)]]));
  return {
    Checkout: object({
      checkout_uuid: uuid,
      merchant_uuid: uuid,
      state: oneOf(CHECKOUT_STATE_NAMES),
      amount: str({ description: "canonical decimal" }),
      pairs: { type: "array", items: object({ asset: asset(), rail: rail() }), description: "the asset/network pairs the payer may choose" },
      jurisdiction,
      reference: nullable(str()),
      description: nullable(str()),
      intent_uuid: nullable({ ...uuid, description: "the pay-in intent a payer's start created; null before" }),
      payment_window_seconds: int({ minimum: 0 }),
      created_at: dateTime,
      updated_at: dateTime,
    }),
    ...perType,
    Event: {
      description:
        "An event: the same object a webhook delivers as its `data`. `type` says which of the shapes it is; fields a receiver does not know are to be ignored.",
      oneOf: EVENT_TYPES.map((type) => ref(eventSchemaName(type))),
    },
    EventList: object({
      data: { type: "array", items: ref("Event"), description: "oldest first" },
      has_more: bool({ description: "whether more events follow the last one answered (now)" }),
      next_after: nullable({
        ...uuid,
        description:
          "send as `after` for the next page, or later to poll for new events: the last event's id, or when the page is empty the `after` sent (null without one)",
      }),
    }),
    WebhookEndpoint: object(endpointFields),
    WebhookEndpointWithSecret: object({
      ...endpointFields,
      secret: str({
        pattern: "^whsec_[A-Za-z0-9+/]+={0,2}$",
        description: "the signing secret (whsec_ and base64 of the key), shown in this answer only: keep it now, it is never shown again",
      }),
    }),
    WebhookEndpointList: object({ data: { type: "array", items: ref("WebhookEndpoint"), description: "every endpoint of the merchant, oldest first" } }),
    WebhookEndpointCreateRequest: object(
      {
        url: str({
          minLength: 1,
          maxLength: MAX_WEBHOOK_URL_LENGTH,
          description:
            "https only (http and loopback only on a platform set up for local development); every address its name resolves to must be public, checked now and before each delivery; redirects are not followed",
        }),
        event_types: eventTypesRequest("the types to receive, each once; webhook.test cannot be named. Left out or null: every type, those added later included"),
        description: descriptionRequest,
      },
      ["event_types", "description"],
    ),
    WebhookEndpointUpdateRequest: {
      ...object(
        {
          url: str({ minLength: 1, maxLength: MAX_WEBHOOK_URL_LENGTH, description: "as on create" }),
          event_types: eventTypesRequest("replaces the types; null: every type"),
          description: descriptionRequest,
          enabled: bool({ description: "true enables it again (one the platform disabled starts afresh), false stops deliveries to it" }),
        },
        ["url", "event_types", "description", "enabled"],
      ),
      minProperties: 1,
      description: "the fields to change (at least one); those left out stay as they are",
    },
    WebhookSecretRotateRequest: object(
      {
        grace_seconds: int({
          minimum: 0,
          maximum: MAX_GRACE_SECONDS,
          default: DEFAULT_GRACE_SECONDS,
          description: "how long the previous secret keeps signing beside the new one (two signatures in webhook-signature); 0 ends it at once",
        }),
      },
      ["grace_seconds"],
    ),
    EventResendRequest: object(
      { endpoint_uuid: nullable({ ...uuid, description: "only to this endpoint; left out: to every enabled endpoint that receives the event's type" }) },
      ["endpoint_uuid"],
    ),
    FailedDeliveriesResendRequest: object({ since: str({ format: "date-time", description: "events created at or after this time, in UTC" }) }),
    DeliveryAttempt: object({
      attempted_at: dateTime,
      status_code: nullable(int({ minimum: 100, maximum: 599, description: "the receiver's HTTP status" })),
      duration_ms: int({ minimum: 0 }),
      response_excerpt: nullable(str({ description: "the first bytes of the receiver's answer, as text" })),
      error: nullable(str({ description: "why it failed without an answer (timeout, address refused, …)" })),
    }),
    Delivery: object({
      delivery_uuid: uuid,
      event_id: uuid,
      endpoint_uuid: uuid,
      event_type: oneOf(EVENT_TYPES),
      status: oneOf(DELIVERY_STATUSES, {
        description: "pending: waiting for its first or next attempt; succeeded: a 2xx within 15 s; failed: given up (the schedule ran out or the endpoint was disabled)",
      }),
      attempt_count: int({ minimum: 0 }),
      next_attempt_at: nullable({ ...dateTime, description: "when the next attempt is due, while pending" }),
      created_at: dateTime,
      updated_at: dateTime,
      attempts: { type: "array", items: ref("DeliveryAttempt"), description: "every attempt, oldest first" },
    }),
    DeliveryList: object({
      data: { type: "array", items: ref("Delivery"), description: "newest first" },
      has_more: bool(),
      next_before: nullable({ ...uuid, description: "send as `before` for the next (older) page; null when there is none" }),
    }),
    DeliveryBatch: object({ data: { type: "array", items: ref("Delivery"), description: "the deliveries queued again" } }),
    ResentDeliveries: object({ resent: int({ minimum: 0, description: "how many failed deliveries were queued again" }) }),
  };
}

/** The Standard Webhooks headers of every delivery, as parameters. */
export const WEBHOOK_HEADER_PARAMETERS: Record<string, Schema> = {
  webhookId: {
    name: "webhook-id",
    in: "header",
    required: true,
    description: "the event id (data.id): the same on every retry and resend of the event; a receiver that saw it before acknowledges and does nothing more",
    schema: uuid,
  },
  webhookTimestamp: {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description: "when this attempt was signed, in whole seconds since the Unix epoch; refuse a delivery more than 5 minutes from your clock (replays)",
    schema: str({ pattern: "^[0-9]{1,12}$" }),
  },
  webhookSignature: {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      "space-separated `v1,<base64 HMAC-SHA256>` signatures of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the endpoint's secret (base64 after whsec_); " +
      "two while a rotation's grace period runs (new and previous secret): accept the delivery when one matches",
    schema: str({ pattern: "^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$" }),
  },
};

/** The `webhooks` section: one POST per event type, as the platform sends it to an endpoint. */
export function webhooksSection(): Record<string, Schema> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const info = EVENT_TYPE_INFO[type];
      const sent =
        type === TEST_EVENT_TYPE
          ? "Sent by POST …/webhook-endpoints/{endpoint_uuid}/test to that endpoint only; never listed by the events API."
          : "Sent to every enabled endpoint that receives this type; listed by the events API with the same data.";
      return [
        type,
        {
          post: {
            operationId: `${typeStem(type).charAt(0).toLowerCase()}${typeStem(type).slice(1)}Webhook`,
            tags: ["webhooks"],
            summary: `${type} (version ${info.version})`,
            description: `${info.description}\n\n${sent} Signed per Standard Webhooks 1.0; delivered at least once, in no promised order (sort by data.sequence).`,
            "x-event-version": info.version,
            security: [],
            parameters: Object.keys(WEBHOOK_HEADER_PARAMETERS).map((name) => ({ $ref: `#/components/parameters/${name}` })),
            requestBody: { required: true, content: { "application/json": { schema: ref(webhookSchemaName(type)) } } },
            responses: {
              "2XX": { description: "received: the delivery succeeded (any 2xx within 15 seconds; the answer's first bytes are kept in the delivery log)" },
              "410": { description: "gone: the endpoint is disabled and nothing more is sent to it until a person enables it again" },
              "429": {
                description: "too many requests: a failure, retried on the schedule but no sooner than its Retry-After (seconds or an HTTP date, honoured up to a day)",
              },
              default: {
                description:
                  "anything else (3xx included, no redirect is followed), no answer within 15 seconds or no connection: a failure, retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (with jitter), then given up; 503 with Retry-After is honoured like 429. An endpoint every delivery to which has failed for 5 days is disabled",
              },
            },
          },
        },
      ];
    }),
  );
}
