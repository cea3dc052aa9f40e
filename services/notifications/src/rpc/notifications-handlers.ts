import type { KeyObject } from "node:crypto";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { notificationsV1 } from "@payin/proto";
import { fromTimestamp } from "@payin/rpc";
import { listDeliveries, resendEvent, resendFailedDeliveries } from "../domain/deliveries.js";
import type { Deps } from "../domain/deps.js";
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, rotateSecret, sendTestEvent, updateEndpoint } from "../domain/endpoints.js";
import { getEvent, listEvents, recordEvents } from "../domain/events.js";
import { changeActorOf } from "./actor.js";
import { deliveryToPb, endpointToPb, eventToPb } from "./mappers.js";

/**
 * NotificationsService handlers: proto in, domain call, proto out. The person
 * of every change is taken from identity's assertion, verified with
 * `assertionKey` (rpc/actor.ts).
 */
export function notificationsHandlers(deps: Deps, assertionKey: KeyObject): ServiceImpl<typeof notificationsV1.NotificationsService> {
  const actorOf = (assertion: string, ctx: HandlerContext) => changeActorOf(assertionKey, assertion, ctx, deps.now());
  return {
    async recordEvents(req) {
      const recorded = await recordEvents(
        deps,
        req.events.map((e) => ({
          eventUuid: e.eventUuid,
          merchantUuid: e.merchantUuid,
          type: e.type,
          createdAt: fromTimestamp(e.createdAt),
          sequence: e.sequence,
          intentUuid: e.intentUuid,
          checkoutUuid: e.checkoutUuid,
          dataJson: e.dataJson,
        })),
      );
      return { recorded };
    },
    async listEvents(req) {
      const { events, hasMore } = await listEvents(deps, { merchantUuid: req.merchantUuid, after: req.after, types: req.types, intentUuid: req.intentUuid, limit: req.limit });
      return { events: events.map(eventToPb), hasMore };
    },
    async getEvent(req) {
      return { event: eventToPb(await getEvent(deps, req.merchantUuid, req.eventUuid)) };
    },
    async createWebhookEndpoint(req, ctx) {
      const actor = actorOf(req.actorAssertion, ctx);
      const { endpoint, secret } = await createEndpoint(deps, { merchantUuid: req.merchantUuid, url: req.url, eventTypes: req.eventTypes, description: req.description, actor });
      return { endpoint: endpointToPb(endpoint), secret };
    },
    async listWebhookEndpoints(req) {
      return { endpoints: (await listEndpoints(deps, req.merchantUuid)).map(endpointToPb) };
    },
    async getWebhookEndpoint(req) {
      return { endpoint: endpointToPb(await getEndpoint(deps, req.merchantUuid, req.endpointUuid)) };
    },
    async updateWebhookEndpoint(req, ctx) {
      const actor = actorOf(req.actorAssertion, ctx);
      const endpoint = await updateEndpoint(deps, {
        merchantUuid: req.merchantUuid,
        endpointUuid: req.endpointUuid,
        url: req.url,
        eventTypes: req.eventTypes?.types,
        description: req.description,
        enabled: req.enabled,
        actor,
      });
      return { endpoint: endpointToPb(endpoint) };
    },
    async deleteWebhookEndpoint(req, ctx) {
      const actor = actorOf(req.actorAssertion, ctx);
      await deleteEndpoint(deps, { merchantUuid: req.merchantUuid, endpointUuid: req.endpointUuid, actor });
      return {};
    },
    async rotateWebhookSecret(req, ctx) {
      const actor = actorOf(req.actorAssertion, ctx);
      const { endpoint, secret } = await rotateSecret(deps, { merchantUuid: req.merchantUuid, endpointUuid: req.endpointUuid, graceSeconds: req.graceSeconds, actor });
      return { endpoint: endpointToPb(endpoint), secret };
    },
    async sendTestEvent(req, ctx) {
      const actor = actorOf(req.actorAssertion, ctx);
      return { event: eventToPb(await sendTestEvent(deps, { merchantUuid: req.merchantUuid, endpointUuid: req.endpointUuid, actor })) };
    },
    async listDeliveries(req) {
      const { deliveries, hasMore } = await listDeliveries(deps, {
        merchantUuid: req.merchantUuid,
        endpointUuid: req.endpointUuid,
        eventUuid: req.eventUuid,
        status: req.status,
        limit: req.limit,
        before: req.before,
      });
      return { deliveries: deliveries.map(deliveryToPb), hasMore };
    },
    async resendEvent(req, ctx) {
      const actor = actorOf(req.actorAssertion, ctx);
      const deliveries = await resendEvent(deps, { merchantUuid: req.merchantUuid, eventUuid: req.eventUuid, endpointUuid: req.endpointUuid, actor });
      return { deliveries: deliveries.map(deliveryToPb) };
    },
    async resendFailedDeliveries(req, ctx) {
      const actor = actorOf(req.actorAssertion, ctx);
      const resent = await resendFailedDeliveries(deps, { merchantUuid: req.merchantUuid, endpointUuid: req.endpointUuid, since: fromTimestamp(req.since), actor });
      return { resent };
    },
  };
}
