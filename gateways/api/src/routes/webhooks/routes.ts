/**
 * A merchant's events and webhook endpoints under /api/v1/merchants/{merchant_uuid}
 * (docs/webhooks.md), answered from the notifications service:
 * - events (list, read): merchant.payin.read, with exactly the pay-in reads'
 *   access (authoriseForMerchant: a machine credential of the merchant, or a
 *   member);
 * - webhook endpoints, their deliveries and redelivery: a signed-in person
 *   holding webhook.manage for the merchant, or a platform admin
 *   (authoriseWebhookManager); never a machine credential.
 * Every request is authorised first, then its query and body are checked
 * (webhooks/input.ts), then notifications is called once: a refusal changes
 * nothing. A change passes the person's actor assertion; notifications records
 * its success in the audit log (its outbox), refusals are recorded here under
 * the change's action, as the audit rule has it (@payin/operations).
 */
import type { Context } from "koa";
import { ApiError, lowerCaseUuidParams, readJsonObject, readQuery, strictRouter } from "@payin/http";
import { isUuid } from "@payin/ids";
import { recordAudit, refusalCode, type AuditTarget } from "@payin/operations";
import { toTimestamp } from "@payin/rpc";
import type { AppDeps } from "../../deps.js";
import { authoriseForMerchant } from "../../auth/merchant-access.js";
import { authoriseWebhookManager } from "../../auth/webhook-access.js";
import type { Principal } from "../../auth/authenticator.js";
import { actorOf, operationPorts } from "../../operations.js";
import { readNoBody } from "../admin/common.js";
import {
  DELIVERIES_QUERY, EVENTS_QUERY, parseCreateEndpoint, parseDeliveriesQuery, parseEventsQuery, parseResendEvent, parseResendFailed, parseRotateSecret, parseUpdateEndpoint,
} from "./input.js";
import { deliveryListView, deliveryView, endpointView, endpointWithSecretView, eventListView, eventView } from "./views.js";

export type WebhookDeps = Pick<AppDeps, "auth" | "merchants" | "notifications" | "logger">;

/** A missing event, a malformed event id, another merchant's event (as notifications answers them). */
const eventNotFound = () => new ApiError("EVENT_NOT_FOUND", "event not found");
/** A missing endpoint, a malformed endpoint uuid, another merchant's endpoint. */
const endpointNotFound = () => new ApiError("WEBHOOK_ENDPOINT_NOT_FOUND", "webhook endpoint not found");

/** The path's event id, lower case; a malformed one is 404 as an unknown one is. */
function eventIdOf(ctx: Context): string {
  const id = ctx.params.event_id!;
  if (!isUuid(id)) throw eventNotFound();
  return id;
}

function endpointUuidOf(ctx: Context): string {
  const uuid = ctx.params.endpoint_uuid!;
  if (!isUuid(uuid)) throw endpointNotFound();
  return uuid;
}

/** Optional JSON body: none, or a JSON object (then parsed by `parse`). */
async function optionalBody<T>(ctx: Context, parse: (body: Record<string, unknown>) => T): Promise<T> {
  const length = ctx.get("content-length");
  if ((length === "" || length === "0") && !ctx.get("transfer-encoding")) return parse({});
  return parse(await readJsonObject(ctx));
}

/** The audited actions of the endpoint changes (notifications records their successes under the same names). */
export const WEBHOOK_ACTIONS = {
  create: "webhook_endpoint.create",
  update: "webhook_endpoint.update",
  delete: "webhook_endpoint.delete",
  rotateSecret: "webhook_endpoint.rotate_secret",
  test: "webhook_endpoint.test",
  resendFailed: "webhook_endpoint.resend_failed",
  resendEvent: "event.resend",
} as const;

/** The events and webhook-endpoint routes. */
export function webhookRoutes(deps: WebhookDeps) {
  const notifications = deps.notifications;
  const ports = operationPorts(deps);
  const router = strictRouter({ prefix: "/api/v1/merchants/:merchant_uuid" });
  lowerCaseUuidParams(router, ["merchant_uuid", "event_id", "endpoint_uuid"]);
  const merchantOf = (ctx: Context) => ctx.params.merchant_uuid!;

  /**
   * Runs a change once the person is authorised: a refusal (a 4xx, the
   * gateway's or notifications') is recorded under `action` and answered.
   */
  const change = async <T>(principal: Principal, action: string, target: AuditTarget, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      const code = refusalCode(error);
      if (code) await recordAudit(ports, actorOf(principal), action, target, { outcome: "failed", errorCode: code });
      throw error;
    }
  };

  // ---- Events: the pay-in reads' access -----------------------------------

  router.get("/events", async (ctx) => {
    await authoriseForMerchant(deps, ctx, merchantOf(ctx), "merchant.payin.read");
    const query = parseEventsQuery(readQuery(ctx, EVENTS_QUERY));
    const res = await notifications.listEvents({ merchantUuid: merchantOf(ctx), after: query.after, types: query.types, intentUuid: query.intentUuid, limit: query.limit });
    ctx.body = eventListView(res, query.after);
  });

  router.get("/events/:event_id", async (ctx) => {
    await authoriseForMerchant(deps, ctx, merchantOf(ctx), "merchant.payin.read");
    readQuery(ctx, []);
    const res = await notifications.getEvent({ merchantUuid: merchantOf(ctx), eventUuid: eventIdOf(ctx) });
    ctx.body = eventView(res.event!);
  });

  // ---- Deliveries and redelivery of an event: webhook managers ------------

  router.get("/events/:event_id/deliveries", async (ctx) => {
    await authoriseWebhookManager(deps, ctx, merchantOf(ctx));
    const query = parseDeliveriesQuery(readQuery(ctx, DELIVERIES_QUERY));
    const res = await notifications.listDeliveries({ merchantUuid: merchantOf(ctx), eventUuid: eventIdOf(ctx), ...query });
    ctx.body = deliveryListView(res);
  });

  router.post("/events/:event_id/resend", async (ctx) => {
    const person = await authoriseWebhookManager(deps, ctx, merchantOf(ctx));
    await change(person, WEBHOOK_ACTIONS.resendEvent, { type: "event", uuid: ctx.params.event_id }, async () => {
      readQuery(ctx, []);
      const eventUuid = eventIdOf(ctx);
      const { endpointUuid } = await optionalBody(ctx, parseResendEvent);
      const res = await notifications.resendEvent({ merchantUuid: merchantOf(ctx), eventUuid, endpointUuid, actorAssertion: person.actorAssertion });
      ctx.status = 202;
      ctx.body = { data: res.deliveries.map(deliveryView) };
    });
  });

  // ---- Webhook endpoints: webhook managers ---------------------------------

  router.post("/webhook-endpoints", async (ctx) => {
    const person = await authoriseWebhookManager(deps, ctx, merchantOf(ctx));
    await change(person, WEBHOOK_ACTIONS.create, { type: "webhook_endpoint", uuid: null }, async () => {
      readQuery(ctx, []);
      const input = parseCreateEndpoint(await readJsonObject(ctx));
      const res = await notifications.createWebhookEndpoint({ merchantUuid: merchantOf(ctx), ...input, actorAssertion: person.actorAssertion });
      const endpoint = res.endpoint!;
      ctx.status = 201;
      ctx.set("location", `/api/v1/merchants/${merchantOf(ctx)}/webhook-endpoints/${endpoint.endpointUuid}`);
      // The secret, shown this once: kept by no cache on the way.
      ctx.set("cache-control", "no-store");
      ctx.body = endpointWithSecretView(endpoint, res.secret);
    });
  });

  router.get("/webhook-endpoints", async (ctx) => {
    await authoriseWebhookManager(deps, ctx, merchantOf(ctx));
    readQuery(ctx, []);
    const res = await notifications.listWebhookEndpoints({ merchantUuid: merchantOf(ctx) });
    ctx.body = { data: res.endpoints.map(endpointView) };
  });

  router.get("/webhook-endpoints/:endpoint_uuid", async (ctx) => {
    await authoriseWebhookManager(deps, ctx, merchantOf(ctx));
    readQuery(ctx, []);
    const res = await notifications.getWebhookEndpoint({ merchantUuid: merchantOf(ctx), endpointUuid: endpointUuidOf(ctx) });
    ctx.body = endpointView(res.endpoint!);
  });

  router.patch("/webhook-endpoints/:endpoint_uuid", async (ctx) => {
    const person = await authoriseWebhookManager(deps, ctx, merchantOf(ctx));
    await change(person, WEBHOOK_ACTIONS.update, { type: "webhook_endpoint", uuid: ctx.params.endpoint_uuid }, async () => {
      readQuery(ctx, []);
      const endpointUuid = endpointUuidOf(ctx);
      const input = parseUpdateEndpoint(await readJsonObject(ctx));
      const res = await notifications.updateWebhookEndpoint({ merchantUuid: merchantOf(ctx), endpointUuid, ...input, actorAssertion: person.actorAssertion });
      ctx.body = endpointView(res.endpoint!);
    });
  });

  router.delete("/webhook-endpoints/:endpoint_uuid", async (ctx) => {
    const person = await authoriseWebhookManager(deps, ctx, merchantOf(ctx));
    await change(person, WEBHOOK_ACTIONS.delete, { type: "webhook_endpoint", uuid: ctx.params.endpoint_uuid }, async () => {
      readQuery(ctx, []);
      const endpointUuid = endpointUuidOf(ctx);
      await readNoBody(ctx);
      await notifications.deleteWebhookEndpoint({ merchantUuid: merchantOf(ctx), endpointUuid, actorAssertion: person.actorAssertion });
      ctx.status = 204;
    });
  });

  router.post("/webhook-endpoints/:endpoint_uuid/rotate-secret", async (ctx) => {
    const person = await authoriseWebhookManager(deps, ctx, merchantOf(ctx));
    await change(person, WEBHOOK_ACTIONS.rotateSecret, { type: "webhook_endpoint", uuid: ctx.params.endpoint_uuid }, async () => {
      readQuery(ctx, []);
      const endpointUuid = endpointUuidOf(ctx);
      const { graceSeconds } = await optionalBody(ctx, parseRotateSecret);
      const res = await notifications.rotateWebhookSecret({ merchantUuid: merchantOf(ctx), endpointUuid, graceSeconds, actorAssertion: person.actorAssertion });
      ctx.set("cache-control", "no-store");
      ctx.body = endpointWithSecretView(res.endpoint!, res.secret);
    });
  });

  router.post("/webhook-endpoints/:endpoint_uuid/test", async (ctx) => {
    const person = await authoriseWebhookManager(deps, ctx, merchantOf(ctx));
    await change(person, WEBHOOK_ACTIONS.test, { type: "webhook_endpoint", uuid: ctx.params.endpoint_uuid }, async () => {
      readQuery(ctx, []);
      const endpointUuid = endpointUuidOf(ctx);
      await readNoBody(ctx);
      const res = await notifications.sendTestEvent({ merchantUuid: merchantOf(ctx), endpointUuid, actorAssertion: person.actorAssertion });
      ctx.status = 202;
      ctx.body = eventView(res.event!);
    });
  });

  router.get("/webhook-endpoints/:endpoint_uuid/deliveries", async (ctx) => {
    await authoriseWebhookManager(deps, ctx, merchantOf(ctx));
    const query = parseDeliveriesQuery(readQuery(ctx, DELIVERIES_QUERY));
    const res = await notifications.listDeliveries({ merchantUuid: merchantOf(ctx), endpointUuid: endpointUuidOf(ctx), ...query });
    ctx.body = deliveryListView(res);
  });

  router.post("/webhook-endpoints/:endpoint_uuid/resend-failed", async (ctx) => {
    const person = await authoriseWebhookManager(deps, ctx, merchantOf(ctx));
    await change(person, WEBHOOK_ACTIONS.resendFailed, { type: "webhook_endpoint", uuid: ctx.params.endpoint_uuid }, async () => {
      readQuery(ctx, []);
      const endpointUuid = endpointUuidOf(ctx);
      const { since } = parseResendFailed(await readJsonObject(ctx));
      const res = await notifications.resendFailedDeliveries({ merchantUuid: merchantOf(ctx), endpointUuid, since: toTimestamp(since), actorAssertion: person.actorAssertion });
      ctx.status = 202;
      ctx.body = { resent: res.resent };
    });
  });

  return router;
}
