/**
 * The merchant's webhooks: the endpoints (overview, add, edit, enable or
 * disable, rotate the signing secret, delete, send a test event), each
 * endpoint's delivery log with resending, and one event's deliveries. The
 * notifications service keeps all of it and decides every change; every page
 * and form needs `webhook.manage`, and every change carries identity's actor
 * assertion of the person, from which the service records who acted. A
 * signing secret is on a page exactly once: in the answer that made it.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import { strictRouter } from "@payin/http";
import { isUuidAnyCase } from "@payin/ids";
import { Code, ConnectError, reasonOf, toTimestamp } from "@payin/rpc";
import type { AppDeps } from "../../deps.js";
import { formArea, pageArea, renderAreaPage, renderAreaProblem, seeOther, timeView, WEBHOOK_PERMISSION, type Area } from "./area.js";
import {
  deliveryView,
  EMPTY_ENDPOINT_FORM,
  endpointView,
  eventTypesOf,
  fieldOfRefusal,
  formValuesOf,
  MAX_URL_LENGTH,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  parseSince,
  readEndpointForm,
  sentence,
  sinceValue,
  typeOptions,
  type EndpointFormErrors,
  type EndpointFormValues,
} from "./webhook-views.js";

export type WebhooksDeps = Pick<AppDeps, "identity" | "merchants" | "notifications" | "views" | "publicUrl" | "now">;

/** Deliveries per page of a log. */
export const DELIVERY_PAGE_SIZE = 20;
/** How far back "resend failed since" starts by default. */
const DEFAULT_RESEND_WINDOW_MS = 24 * 3_600_000;

const NOTICES: Readonly<Record<string, string>> = {
  deleted: "The endpoint was deleted. Nothing more is sent to it.",
  updated: "The endpoint was saved.",
  enabled: "The endpoint is enabled: new events are sent to it.",
  disabled: "The endpoint is disabled: nothing is sent to it until you enable it again.",
  test_sent: "A test event (webhook.test) was sent to this endpoint. Its delivery is at the top of the log below; reload the page to see how it went.",
  resent: "The event is being sent again. Its delivery is in the log below; reload the page to see how it went.",
  resent_failed: "The failed deliveries are being sent again.",
};

/** The notice of `?notice=` (a known one only), with the count of `?count=` for resent_failed. */
function noticeOf(query: Context["query"]): string | null {
  const key = typeof query.notice === "string" ? query.notice : "";
  const text = NOTICES[key];
  if (!text) return null;
  if (key === "resent_failed" && typeof query.count === "string" && /^[0-9]{1,9}$/.test(query.count)) {
    const count = Number(query.count);
    return count === 0 ? "No failed delivery was found for that time: nothing was sent again." : `${count} failed ${count === 1 ? "delivery is" : "deliveries are"} being sent again.`;
  }
  return text;
}

function isNotFound(error: unknown): boolean {
  return error instanceof ConnectError && error.code === Code.NotFound;
}

function endpointNotFound(ctx: Context, deps: WebhooksDeps, area: Area): void {
  renderAreaProblem(ctx, deps, area, 404, "Webhook endpoint not found", "There is no such webhook endpoint in your merchant account.", { section: "webhooks" });
}

/**
 * Answers a refusal of a change to one endpoint that the person can act on:
 * 404 for an endpoint (or event) the merchant has not, 409 for sending to a
 * disabled endpoint. False for anything else (the caller rethrows).
 */
function answeredRefusal(ctx: Context, deps: WebhooksDeps, area: Area, endpointUuid: string, error: unknown): boolean {
  if (isNotFound(error)) {
    if (error instanceof ConnectError && reasonOf(error) === "EVENT_NOT_FOUND") eventNotFound(ctx, deps, area);
    else endpointNotFound(ctx, deps, area);
    return true;
  }
  if (error instanceof ConnectError && reasonOf(error) === "WEBHOOK_ENDPOINT_DISABLED") {
    renderAreaProblem(ctx, deps, area, 409, "This endpoint is disabled", "Nothing is sent to a disabled endpoint, so nothing was sent. Enable it first, then try again.", {
      section: "webhooks",
      backHref: `/merchant/webhooks/${endpointUuid}`,
      backLabel: "Back to the endpoint",
    });
    return true;
  }
  return false;
}

function eventNotFound(ctx: Context, deps: WebhooksDeps, area: Area): void {
  renderAreaProblem(ctx, deps, area, 404, "Event not found", "There is no such event in your merchant account, or it is older than the events kept.", { section: "webhooks" });
}

/** The endpoint uuid of the path, lower case; null (after a 404 page) when it is not a uuid. */
function endpointParam(ctx: Context, deps: WebhooksDeps, area: Area): string | null {
  const uuid = ctx.params.uuid ?? "";
  if (isUuidAnyCase(uuid)) return uuid.toLowerCase();
  endpointNotFound(ctx, deps, area);
  return null;
}

/**
 * A form posted about one endpoint: its area, its fields and the endpoint's
 * uuid; null once a page has answered instead (sign-in, CSRF, permission, a
 * malformed uuid).
 */
async function endpointForm(deps: WebhooksDeps, ctx: Context) {
  const taken = await formArea(deps, ctx, WEBHOOK_PERMISSION);
  if (!taken) return null;
  const uuid = endpointParam(ctx, deps, taken.area);
  return uuid ? { ...taken, uuid } : null;
}

/** The endpoint, or null after a 404 page when the merchant has none such. */
async function loadEndpoint(ctx: Context, deps: WebhooksDeps, area: Area, endpointUuid: string) {
  try {
    const { endpoint } = await deps.notifications.getWebhookEndpoint({ merchantUuid: area.merchantUuid, endpointUuid });
    if (!endpoint) throw new Error("notifications answered without the endpoint");
    return endpoint;
  } catch (error) {
    if (!isNotFound(error)) throw error;
    endpointNotFound(ctx, deps, area);
    return null;
  }
}

interface FormState {
  values: EndpointFormValues;
  errors?: EndpointFormErrors;
  formError?: string | null;
}

function renderEndpointForm(ctx: Context, deps: WebhooksDeps, area: Area, state: FormState, status: number, endpoint: { uuid: string; url: string } | null): void {
  const errors = state.errors ?? {};
  renderAreaPage(
    ctx,
    deps,
    area,
    "merchant/webhook-form.njk",
    "webhooks",
    {
      endpoint,
      values: state.values,
      errors,
      errorCount: Object.keys(errors).length,
      formError: state.formError ?? null,
      options: typeOptions(state.values.types),
      limits: { url: MAX_URL_LENGTH, description: MAX_WEBHOOK_DESCRIPTION_LENGTH },
    },
    status,
  );
}

/**
 * A refusal of the endpoint form by the notifications service, as the form
 * shows it (400; 409 past the merchant's limit); rethrows anything else.
 */
function refusalOnForm(error: unknown): { state: Omit<FormState, "values">; status: number } {
  if (!(error instanceof ConnectError)) throw error;
  const reason = reasonOf(error);
  if (reason === "WEBHOOK_ENDPOINT_LIMIT") {
    return { state: { formError: `${sentence(error.rawMessage)} An endpoint can receive several kinds of events.` }, status: 409 };
  }
  if (error.code !== Code.InvalidArgument) throw error;
  // "url: the host … resolves to a refused address: …" reads on the form as "The host … resolves …".
  const message = sentence(error.rawMessage.replace(/^(url|event_types|description):\s+/, ""));
  const field = fieldOfRefusal(reason, error.rawMessage);
  return { state: field ? { errors: { [field]: message } } : { formError: message }, status: 400 };
}

function renderSecret(ctx: Context, deps: WebhooksDeps, area: Area, kind: "created" | "rotated", endpoint: Parameters<typeof endpointView>[0], secret: string, status: number): void {
  renderAreaPage(ctx, deps, area, "merchant/webhook-secret.njk", "webhooks", { kind, endpoint: endpointView(endpoint, deps.now()), secret }, status);
  // The secret, shown this once: kept by no cache (nor the browser's history of the page).
  ctx.set("cache-control", "no-store");
}

/** The `?before=` cursor of a log: a delivery uuid, or "" for the newest; null when it is neither. */
function beforeCursor(raw: unknown): string | null {
  if (raw === undefined || raw === "") return "";
  return typeof raw === "string" && isUuidAnyCase(raw) ? raw.toLowerCase() : null;
}

interface EndpointPageExtra {
  since?: string;
  sinceError?: string | null;
}

async function renderEndpointPage(ctx: Context, deps: WebhooksDeps, area: Area, endpointUuid: string, extra: EndpointPageExtra, status = 200): Promise<void> {
  const before = beforeCursor(ctx.query.before);
  if (before === null) return renderAreaProblem(ctx, deps, area, 400, "No such page", "The page of deliveries asked for does not exist. Go to the newest deliveries.", { section: "webhooks", backHref: `/merchant/webhooks/${endpointUuid}`, backLabel: "Back to the endpoint" });
  const endpoint = await loadEndpoint(ctx, deps, area, endpointUuid);
  if (!endpoint) return;
  const log = await deps.notifications.listDeliveries({ merchantUuid: area.merchantUuid, endpointUuid, limit: DELIVERY_PAGE_SIZE, before });
  const deliveries = log.deliveries.map(deliveryView);
  const testEvent = typeof ctx.query.event === "string" && isUuidAnyCase(ctx.query.event) ? ctx.query.event.toLowerCase() : null;
  renderAreaPage(
    ctx,
    deps,
    area,
    "merchant/webhook.njk",
    "webhooks",
    {
      endpoint: endpointView(endpoint, deps.now()),
      deliveries,
      newest: before === "",
      older: log.hasMore && deliveries.length > 0 ? deliveries[deliveries.length - 1]!.uuid : null,
      notice: noticeOf(ctx.query),
      noticeEvent: testEvent,
      since: extra.since ?? sinceValue(new Date(deps.now().getTime() - DEFAULT_RESEND_WINDOW_MS)),
      sinceError: extra.sinceError ?? null,
    },
    status,
  );
}

export function webhookRoutes(deps: WebhooksDeps): Router {
  const router = strictRouter();
  const actor = (area: Area) => area.session.actorAssertion;

  router.get("/merchant/webhooks", async (ctx) => {
    const area = await pageArea(deps, ctx, WEBHOOK_PERMISSION);
    if (!area) return;
    const { endpoints } = await deps.notifications.listWebhookEndpoints({ merchantUuid: area.merchantUuid });
    renderAreaPage(ctx, deps, area, "merchant/webhooks.njk", "webhooks", { endpoints: endpoints.map((endpoint) => endpointView(endpoint, deps.now())), notice: noticeOf(ctx.query) });
  });

  // Before /:uuid, which would take "new" for a uuid.
  router.get("/merchant/webhooks/new", async (ctx) => {
    const area = await pageArea(deps, ctx, WEBHOOK_PERMISSION);
    if (!area) return;
    renderEndpointForm(ctx, deps, area, { values: EMPTY_ENDPOINT_FORM }, 200, null);
  });

  router.post("/merchant/webhooks/new", async (ctx) => {
    const taken = await formArea(deps, ctx, WEBHOOK_PERMISSION);
    if (!taken) return;
    const { area, form } = taken;
    const { values, errors } = readEndpointForm(form, { withEnabled: false });
    if (Object.keys(errors).length > 0) return renderEndpointForm(ctx, deps, area, { values, errors }, 400, null);
    let created;
    try {
      created = await deps.notifications.createWebhookEndpoint({
        merchantUuid: area.merchantUuid,
        url: values.url,
        eventTypes: eventTypesOf(values),
        description: values.description,
        actorAssertion: actor(area),
      });
    } catch (error) {
      const refused = refusalOnForm(error);
      return renderEndpointForm(ctx, deps, area, { values, ...refused.state }, refused.status, null);
    }
    if (!created.endpoint || !created.secret) throw new Error("notifications answered without the endpoint or its secret");
    renderSecret(ctx, deps, area, "created", created.endpoint, created.secret, 201);
  });

  router.get("/merchant/webhooks/events/:eventUuid", async (ctx) => {
    const area = await pageArea(deps, ctx, WEBHOOK_PERMISSION);
    if (!area) return;
    const eventUuid = ctx.params.eventUuid ?? "";
    if (!isUuidAnyCase(eventUuid)) return eventNotFound(ctx, deps, area);
    const uuid = eventUuid.toLowerCase();
    const before = beforeCursor(ctx.query.before);
    if (before === null) return renderAreaProblem(ctx, deps, area, 400, "No such page", "The page of deliveries asked for does not exist.", { section: "webhooks", backHref: `/merchant/webhooks/events/${uuid}`, backLabel: "Back to the event" });
    let log;
    try {
      log = await deps.notifications.listDeliveries({ merchantUuid: area.merchantUuid, eventUuid: uuid, limit: DELIVERY_PAGE_SIZE, before });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return eventNotFound(ctx, deps, area);
    }
    // A merchant's event is listed among its events; a test event is not, but its deliveries are.
    let event = null;
    try {
      event = (await deps.notifications.getEvent({ merchantUuid: area.merchantUuid, eventUuid: uuid })).event ?? null;
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    if (!event && log.deliveries.length === 0) return eventNotFound(ctx, deps, area);
    const { endpoints } = await deps.notifications.listWebhookEndpoints({ merchantUuid: area.merchantUuid });
    const urls = new Map(endpoints.map((endpoint) => [endpoint.endpointUuid, endpoint.url]));
    const deliveries = log.deliveries.map((delivery) => ({ ...deliveryView(delivery), endpointUrl: urls.get(delivery.endpointUuid) ?? null }));
    renderAreaPage(ctx, deps, area, "merchant/webhook-event.njk", "webhooks", {
      event: {
        uuid,
        type: event?.type ?? deliveries[0]?.eventType ?? "",
        createdAt: event?.createdAt ? timeView(event.createdAt) : null,
        sequence: event ? Number(event.sequence) : null,
        intentUuid: event?.intentUuid ?? null,
        checkoutUuid: event?.checkoutUuid ?? null,
        listed: event !== null,
      },
      deliveries,
      newest: before === "",
      older: log.hasMore && deliveries.length > 0 ? deliveries[deliveries.length - 1]!.uuid : null,
      notice: noticeOf(ctx.query),
    });
  });

  router.post("/merchant/webhooks/events/:eventUuid/resend", async (ctx) => {
    const taken = await formArea(deps, ctx, WEBHOOK_PERMISSION);
    if (!taken) return;
    const { area } = taken;
    const eventUuid = ctx.params.eventUuid ?? "";
    if (!isUuidAnyCase(eventUuid)) return eventNotFound(ctx, deps, area);
    const uuid = eventUuid.toLowerCase();
    try {
      await deps.notifications.resendEvent({ merchantUuid: area.merchantUuid, eventUuid: uuid, endpointUuid: "", actorAssertion: actor(area) });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return eventNotFound(ctx, deps, area);
    }
    seeOther(ctx, `/merchant/webhooks/events/${uuid}?notice=resent`);
  });

  router.get("/merchant/webhooks/:uuid", async (ctx) => {
    const area = await pageArea(deps, ctx, WEBHOOK_PERMISSION);
    if (!area) return;
    const uuid = endpointParam(ctx, deps, area);
    if (!uuid) return;
    await renderEndpointPage(ctx, deps, area, uuid, {});
  });

  router.get("/merchant/webhooks/:uuid/edit", async (ctx) => {
    const area = await pageArea(deps, ctx, WEBHOOK_PERMISSION);
    if (!area) return;
    const uuid = endpointParam(ctx, deps, area);
    if (!uuid) return;
    const endpoint = await loadEndpoint(ctx, deps, area, uuid);
    if (!endpoint) return;
    renderEndpointForm(ctx, deps, area, { values: formValuesOf(endpoint) }, 200, { uuid, url: endpoint.url });
  });

  router.post("/merchant/webhooks/:uuid/edit", async (ctx) => {
    const taken = await endpointForm(deps, ctx);
    if (!taken) return;
    const { area, form, uuid } = taken;
    const { values, errors } = readEndpointForm(form, { withEnabled: true });
    const shown = { uuid, url: values.url };
    if (Object.keys(errors).length > 0) return renderEndpointForm(ctx, deps, area, { values, errors }, 400, shown);
    try {
      await deps.notifications.updateWebhookEndpoint({
        merchantUuid: area.merchantUuid,
        endpointUuid: uuid,
        url: values.url,
        eventTypes: { types: eventTypesOf(values) },
        description: values.description,
        enabled: values.enabled,
        actorAssertion: actor(area),
      });
    } catch (error) {
      if (isNotFound(error)) return endpointNotFound(ctx, deps, area);
      const refused = refusalOnForm(error);
      return renderEndpointForm(ctx, deps, area, { values, ...refused.state }, refused.status, shown);
    }
    seeOther(ctx, `/merchant/webhooks/${uuid}?notice=updated`);
  });

  router.post("/merchant/webhooks/:uuid/enabled", async (ctx) => {
    const taken = await endpointForm(deps, ctx);
    if (!taken) return;
    const { area, form, uuid } = taken;
    const enabled = form.get("enabled");
    if (enabled !== "true" && enabled !== "false") {
      return renderAreaProblem(ctx, deps, area, 400, "Nothing was changed", "The form did not say whether to enable or disable the endpoint. Go back, reload the page and try again.", { section: "webhooks", backHref: `/merchant/webhooks/${uuid}`, backLabel: "Back to the endpoint" });
    }
    try {
      await deps.notifications.updateWebhookEndpoint({ merchantUuid: area.merchantUuid, endpointUuid: uuid, enabled: enabled === "true", actorAssertion: actor(area) });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return endpointNotFound(ctx, deps, area);
    }
    seeOther(ctx, `/merchant/webhooks/${uuid}?notice=${enabled === "true" ? "enabled" : "disabled"}`);
  });

  router.post("/merchant/webhooks/:uuid/rotate", async (ctx) => {
    const taken = await endpointForm(deps, ctx);
    if (!taken) return;
    const { area, uuid } = taken;
    let rotated;
    try {
      rotated = await deps.notifications.rotateWebhookSecret({ merchantUuid: area.merchantUuid, endpointUuid: uuid, actorAssertion: actor(area) });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return endpointNotFound(ctx, deps, area);
    }
    if (!rotated.endpoint || !rotated.secret) throw new Error("notifications answered without the endpoint or its new secret");
    renderSecret(ctx, deps, area, "rotated", rotated.endpoint, rotated.secret, 200);
  });

  router.get("/merchant/webhooks/:uuid/delete", async (ctx) => {
    const area = await pageArea(deps, ctx, WEBHOOK_PERMISSION);
    if (!area) return;
    const uuid = endpointParam(ctx, deps, area);
    if (!uuid) return;
    const endpoint = await loadEndpoint(ctx, deps, area, uuid);
    if (!endpoint) return;
    renderAreaPage(ctx, deps, area, "merchant/webhook-delete.njk", "webhooks", { endpoint: endpointView(endpoint, deps.now()) });
  });

  router.post("/merchant/webhooks/:uuid/delete", async (ctx) => {
    const taken = await endpointForm(deps, ctx);
    if (!taken) return;
    const { area, uuid } = taken;
    try {
      await deps.notifications.deleteWebhookEndpoint({ merchantUuid: area.merchantUuid, endpointUuid: uuid, actorAssertion: actor(area) });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return endpointNotFound(ctx, deps, area);
    }
    seeOther(ctx, "/merchant/webhooks?notice=deleted");
  });

  router.post("/merchant/webhooks/:uuid/test", async (ctx) => {
    const taken = await endpointForm(deps, ctx);
    if (!taken) return;
    const { area, uuid } = taken;
    let sent;
    try {
      sent = await deps.notifications.sendTestEvent({ merchantUuid: area.merchantUuid, endpointUuid: uuid, actorAssertion: actor(area) });
    } catch (error) {
      if (answeredRefusal(ctx, deps, area, uuid, error)) return;
      throw error;
    }
    const event = sent.event?.eventUuid ? `&event=${encodeURIComponent(sent.event.eventUuid)}` : "";
    seeOther(ctx, `/merchant/webhooks/${uuid}?notice=test_sent${event}`);
  });

  router.post("/merchant/webhooks/:uuid/resend", async (ctx) => {
    const taken = await endpointForm(deps, ctx);
    if (!taken) return;
    const { area, form, uuid } = taken;
    const eventUuid = form.get("event_uuid") ?? "";
    if (!isUuidAnyCase(eventUuid)) return eventNotFound(ctx, deps, area);
    const event = eventUuid.toLowerCase();
    try {
      await deps.notifications.resendEvent({ merchantUuid: area.merchantUuid, eventUuid: event, endpointUuid: uuid, actorAssertion: actor(area) });
    } catch (error) {
      if (answeredRefusal(ctx, deps, area, uuid, error)) return;
      throw error;
    }
    seeOther(ctx, form.get("back") === "event" ? `/merchant/webhooks/events/${event}?notice=resent` : `/merchant/webhooks/${uuid}?notice=resent`);
  });

  router.post("/merchant/webhooks/:uuid/resend-failed", async (ctx) => {
    const taken = await endpointForm(deps, ctx);
    if (!taken) return;
    const { area, form, uuid } = taken;
    const raw = (form.get("since") ?? "").trim();
    const since = parseSince(raw, deps.now());
    if (!since) {
      const sinceError = "Enter a date and time in UTC that is not in the future, for example 2026-11-27T09:30.";
      return renderEndpointPage(ctx, deps, area, uuid, { since: raw, sinceError }, 400);
    }
    let resent;
    try {
      resent = await deps.notifications.resendFailedDeliveries({ merchantUuid: area.merchantUuid, endpointUuid: uuid, since: toTimestamp(since), actorAssertion: actor(area) });
    } catch (error) {
      if (answeredRefusal(ctx, deps, area, uuid, error)) return;
      throw error;
    }
    seeOther(ctx, `/merchant/webhooks/${uuid}?notice=resent_failed&count=${resent.resent}`);
  });

  return router;
}
