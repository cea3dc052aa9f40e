/**
 * The webhook pages' pure parts: what a merchant typed into an endpoint form
 * and what is wrong with it, where a refusal of the notifications service
 * belongs on the form, and the endpoints and deliveries as the templates show
 * them.
 */
import { charLength, displayTextProblem } from "@payin/http";
import { EVENT_TYPE_INFO, EVENT_TYPES, type EventType } from "@payin/events";
import type { notificationsV1 } from "@payin/proto";
import { timeView, type TimeView } from "./area.js";

/** The types an endpoint can subscribe to: every type but the test event (sent to one endpoint on request). */
export const SUBSCRIBABLE_TYPES: readonly EventType[] = EVENT_TYPES.filter((type) => type !== "webhook.test");

/** The longest URL the form takes (the notifications service's limit). */
export const MAX_URL_LENGTH = 2_048;
/** The longest description (the notifications service's limit). */
export const MAX_WEBHOOK_DESCRIPTION_LENGTH = 200;

/** What the merchant typed into the endpoint form, kept as typed so a refused form shows it again. */
export interface EndpointFormValues {
  url: string;
  description: string;
  /** "all": every type (also those added later); "some": the ticked ones. */
  scope: "all" | "some";
  types: string[];
  /** Only on the edit form. */
  enabled: boolean;
}

export type EndpointFormErrors = Partial<Record<"url" | "types" | "description" | "enabled", string>>;

export const EMPTY_ENDPOINT_FORM: EndpointFormValues = { url: "", description: "", scope: "all", types: [], enabled: true };

const HIDDEN_CHARACTERS = "Remove the invisible or text-direction characters: the description would not read as you wrote it.";

/**
 * The form's values and what is wrong with them, field by field. The form
 * checks only what it can see (a URL at all, known types, the description's
 * length); whether the URL may receive webhooks (https, a public address) is
 * the notifications service's decision, shown on the form when it refuses.
 */
export function readEndpointForm(form: URLSearchParams, options: { withEnabled: boolean }): { values: EndpointFormValues; errors: EndpointFormErrors } {
  const scope = form.get("scope") === "some" ? "some" : "all";
  const values: EndpointFormValues = {
    url: (form.get("url") ?? "").trim(),
    description: (form.get("description") ?? "").trim(),
    scope,
    types: [...new Set(form.getAll("event_type"))],
    enabled: options.withEnabled ? form.get("enabled") !== "false" : true,
  };
  const errors: EndpointFormErrors = {};
  if (!values.url) errors.url = "Enter the address of your receiver, for example https://example.com/webhooks/payin.";
  else if (charLength(values.url) > MAX_URL_LENGTH) errors.url = `The address may be at most ${MAX_URL_LENGTH} characters.`;
  else if (!isWebUrl(values.url)) errors.url = "Enter a full web address starting with https://, for example https://example.com/webhooks/payin.";
  if (values.types.some((type) => !(SUBSCRIBABLE_TYPES as readonly string[]).includes(type))) errors.types = "Choose among the event types offered.";
  else if (scope === "some" && values.types.length === 0) errors.types = "Tick at least one event type, or choose to receive every event.";
  if (charLength(values.description) > MAX_WEBHOOK_DESCRIPTION_LENGTH) errors.description = `The description may be at most ${MAX_WEBHOOK_DESCRIPTION_LENGTH} characters.`;
  else if (displayTextProblem(values.description)) errors.description = HIDDEN_CHARACTERS;
  if (options.withEnabled && !["true", "false"].includes(form.get("enabled") ?? "")) errors.enabled = "Choose whether the endpoint receives events.";
  return { values, errors };
}

function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

/** The event types to send for the form's values: an empty list is every type. */
export function eventTypesOf(values: EndpointFormValues): string[] {
  return values.scope === "all" ? [] : SUBSCRIBABLE_TYPES.filter((type) => values.types.includes(type));
}

/** The form's values for an endpoint as it is (the edit form's start). */
export function formValuesOf(endpoint: notificationsV1.WebhookEndpoint): EndpointFormValues {
  return { url: endpoint.url, description: endpoint.description, scope: endpoint.eventTypes.length === 0 ? "all" : "some", types: [...endpoint.eventTypes], enabled: endpoint.enabled };
}

/** The checkboxes of the form: every subscribable type, its meaning, and whether it is ticked. */
export function typeOptions(chosen: readonly string[]) {
  return SUBSCRIBABLE_TYPES.map((type) => ({ value: type, id: `type-${type.replace(/[._]/g, "-")}`, description: EVENT_TYPE_INFO[type].description.replace(/`/g, ""), checked: chosen.includes(type) }));
}

/** The field a refusal of the notifications service belongs to, by its reason (and, for VALIDATION_ERROR, by the field its message names first). */
export function fieldOfRefusal(reason: string | undefined, message: string): keyof EndpointFormErrors | null {
  if (reason === "WEBHOOK_URL_INVALID") return "url";
  if (reason === "WEBHOOK_EVENT_TYPES_INVALID") return "types";
  const named = /^(url|description|event_types|enabled)\b/.exec(message);
  if (!named) return null;
  return named[1] === "event_types" ? "types" : (named[1] as keyof EndpointFormErrors);
}

/** A sentence from a service's message: capital first letter, a full stop. */
export function sentence(message: string): string {
  const text = message.trim();
  if (!text) return "The notifications service refused it.";
  const capital = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

export interface EndpointView {
  uuid: string;
  url: string;
  description: string;
  /** The types it receives; empty for every type. */
  eventTypes: string[];
  enabled: boolean;
  /** Why the service disabled it, in words, or null (enabled, or disabled by a person). */
  disabledBy: { code: string; text: string } | null;
  disabledAt: TimeView | null;
  failingSince: TimeView | null;
  previousSecretExpiresAt: TimeView | null;
  createdAt: TimeView | null;
  updatedAt: TimeView | null;
}

/** What each reason the service gives for disabling an endpoint means. */
const DISABLED_REASONS: Readonly<Record<string, string>> = {
  gone: "Your receiver answered 410 Gone, which says the address no longer exists, so the platform stopped sending to it.",
  failing: "Every delivery to it failed for 5 days, so the platform stopped sending to it.",
};

export function endpointView(endpoint: notificationsV1.WebhookEndpoint, now: Date): EndpointView {
  const reason = endpoint.enabled ? "" : endpoint.disabledReason;
  const previousExpires = endpoint.previousSecretExpiresAt ? timeView(endpoint.previousSecretExpiresAt) : null;
  return {
    uuid: endpoint.endpointUuid,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: [...endpoint.eventTypes],
    enabled: endpoint.enabled,
    disabledBy: reason ? { code: reason, text: DISABLED_REASONS[reason] ?? "The platform stopped sending to it." } : null,
    disabledAt: endpoint.disabledAt ? timeView(endpoint.disabledAt) : null,
    failingSince: endpoint.failingSince ? timeView(endpoint.failingSince) : null,
    previousSecretExpiresAt: previousExpires && new Date(previousExpires.iso) > now ? previousExpires : null,
    createdAt: endpoint.createdAt ? timeView(endpoint.createdAt) : null,
    updatedAt: endpoint.updatedAt ? timeView(endpoint.updatedAt) : null,
  };
}

const DELIVERY_STATUS_TEXT: Readonly<Record<string, string>> = {
  pending: "Waiting for its next attempt",
  succeeded: "Delivered",
  failed: "Failed: no more attempts",
};

/** An instant to the second (attempts follow each other within seconds). */
function toTheSecond(view: TimeView | null): TimeView | null {
  return view ? { iso: view.iso, text: `${view.iso.slice(0, 10)} ${view.iso.slice(11, 19)} UTC` } : null;
}

export interface AttemptView {
  number: number;
  at: TimeView | null;
  /** The receiver's HTTP status, or null when none came. */
  statusCode: number | null;
  ok: boolean;
  durationMs: number;
  excerpt: string;
  error: string;
}

export interface DeliveryView {
  uuid: string;
  eventUuid: string;
  endpointUuid: string;
  eventType: string;
  status: string;
  statusText: string;
  attemptCount: number;
  nextAttemptAt: TimeView | null;
  createdAt: TimeView | null;
  attempts: AttemptView[];
}

export function deliveryView(delivery: notificationsV1.Delivery): DeliveryView {
  return {
    uuid: delivery.deliveryUuid,
    eventUuid: delivery.eventUuid,
    endpointUuid: delivery.endpointUuid,
    eventType: delivery.eventType,
    status: delivery.status,
    statusText: DELIVERY_STATUS_TEXT[delivery.status] ?? delivery.status,
    attemptCount: delivery.attemptCount,
    nextAttemptAt: delivery.status === "pending" && delivery.nextAttemptAt ? timeView(delivery.nextAttemptAt) : null,
    createdAt: delivery.createdAt ? timeView(delivery.createdAt) : null,
    attempts: delivery.attempts.map((attempt, index) => ({
      number: index + 1,
      at: attempt.attemptedAt ? toTheSecond(timeView(attempt.attemptedAt)) : null,
      statusCode: attempt.statusCode || null,
      ok: attempt.statusCode >= 200 && attempt.statusCode < 300,
      durationMs: attempt.durationMs,
      excerpt: attempt.responseExcerpt,
      error: attempt.error,
    })),
  };
}

/**
 * The instant of the "resend failed since" field: a `datetime-local` value
 * (`YYYY-MM-DDTHH:MM`, seconds optional) read as UTC; null when it is not one
 * or lies in the future of `now`.
 */
export function parseSince(raw: string, now: Date): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(raw.trim());
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  // Date.UTC rolls over (31 February is 3 March): only a date that reads back the same was meant.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) return null;
  return date.getTime() > now.getTime() ? null : date;
}

/** A `datetime-local` value (UTC, to the minute) for `date`. */
export function sinceValue(date: Date): string {
  return date.toISOString().slice(0, 16);
}
