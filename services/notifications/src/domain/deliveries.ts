import { isUuid } from "@payin/ids";
import { recordChange, retentionStart, type Deps } from "./deps.js";
import { endpointOf, requireEnabled } from "./endpoints.js";
import { eventNotFound, subscribes } from "./events.js";
import { DELIVERY_STATUSES, type ChangeActor, type Delivery, type DeliveryStatus, type DeliveryWithAttempts, type NewDelivery, type NotificationsStores, type StoredEvent, type WebhookEndpoint } from "./model.js";
import { checkLimit, checkMerchantUuid, checkUuid, clip, invalid } from "./validation.js";

/** An event of the merchant still kept, test events included (their deliveries are logged too); EVENT_NOT_FOUND otherwise. */
async function eventOf(deps: Deps, stores: NotificationsStores, merchantUuid: string, eventUuid: string): Promise<StoredEvent> {
  const event = isUuid(eventUuid) ? await stores.events.get(merchantUuid, eventUuid, retentionStart(deps, deps.now()), true) : null;
  if (!event) throw eventNotFound();
  return event;
}

async function withAttempts(stores: NotificationsStores, deliveries: readonly Delivery[]): Promise<DeliveryWithAttempts[]> {
  const attempts = await stores.deliveries.attemptsOf(deliveries.map((d) => d.deliveryUuid));
  return deliveries.map((d) => ({ ...d, attempts: attempts.get(d.deliveryUuid) ?? [] }));
}

/** Deliveries of one endpoint or of one event of the merchant, newest first, each with its attempts. */
export async function listDeliveries(
  deps: Deps,
  input: { merchantUuid: string; endpointUuid: string; eventUuid: string; status: string; limit: number; before: string },
): Promise<{ deliveries: DeliveryWithAttempts[]; hasMore: boolean }> {
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  if ((input.endpointUuid === "") === (input.eventUuid === "")) invalid("name exactly one of endpoint_uuid and event_uuid");
  let status: DeliveryStatus | null = null;
  if (input.status !== "") {
    if (!(DELIVERY_STATUSES as readonly string[]).includes(input.status)) invalid(`status "${clip(input.status)}" is not one of ${DELIVERY_STATUSES.join(", ")}`);
    status = input.status as DeliveryStatus;
  }
  const limit = checkLimit(input.limit);
  const stores = deps.uow.read();
  const endpointUuid = input.endpointUuid === "" ? null : (await endpointOf(stores, merchantUuid, input.endpointUuid)).endpointUuid;
  const eventUuid = input.eventUuid === "" ? null : (await eventOf(deps, stores, merchantUuid, input.eventUuid)).eventUuid;
  let before: { createdAt: Date; deliveryUuid: string } | null = null;
  if (input.before !== "") {
    const cursor = await stores.deliveries.get(merchantUuid, checkUuid("before", input.before));
    if (!cursor) invalid("before names no delivery of this merchant");
    before = { createdAt: cursor.createdAt, deliveryUuid: cursor.deliveryUuid };
  }
  const rows = await stores.deliveries.list({ merchantUuid, endpointUuid, eventUuid, status, before, limit: limit + 1 });
  return { deliveries: await withAttempts(stores, rows.slice(0, limit)), hasMore: rows.length > limit };
}

/**
 * Sends an event again, under the same webhook-id: to one enabled endpoint
 * (named), or to every enabled endpoint that has a delivery of it or
 * subscribes to its type. Each delivery is pending again, due now, its
 * schedule started afresh; one is made where none was.
 */
export async function resendEvent(
  deps: Deps,
  input: { merchantUuid: string; eventUuid: string; endpointUuid: string; actor: ChangeActor },
): Promise<DeliveryWithAttempts[]> {
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  return deps.uow.transaction(async (stores) => {
    const event = await eventOf(deps, stores, merchantUuid, input.eventUuid);
    const now = deps.now();
    const existing = new Map((await stores.deliveries.ofEvent(event.eventUuid)).map((d) => [d.endpointUuid, d]));
    let targets: WebhookEndpoint[];
    if (input.endpointUuid !== "") {
      const endpoint = await endpointOf(stores, merchantUuid, input.endpointUuid);
      requireEnabled(endpoint);
      targets = [endpoint];
    } else {
      targets = (await stores.endpoints.list(merchantUuid)).filter((e) => e.enabled && (existing.has(e.endpointUuid) || subscribes(e, event.type)));
    }
    const restart = targets.flatMap((e) => existing.get(e.endpointUuid)?.deliveryUuid ?? []);
    const create: NewDelivery[] = targets
      .filter((e) => !existing.has(e.endpointUuid))
      .map((e) => ({ deliveryUuid: deps.newUuid(), eventUuid: event.eventUuid, endpointUuid: e.endpointUuid, merchantUuid, eventType: event.type, nextAttemptAt: now, createdAt: now }));
    const deliveries = [...(await stores.deliveries.restart(restart, now)), ...(create.length > 0 ? await stores.deliveries.insertNew(create) : [])];
    await stores.jobs.enqueue(deliveries.map((d) => ({ deliveryUuid: d.deliveryUuid, runAt: now })));
    await recordChange(stores, deps, input.actor, { action: "event.resend", targetType: "event", targetUuid: event.eventUuid, at: now });
    return withAttempts(stores, deliveries);
  });
}

/**
 * Sends again every delivery of an enabled endpoint that failed (given up, or
 * waiting for a retry after a failed attempt) for events created at or after
 * `since`; answers how many.
 */
export async function resendFailedDeliveries(
  deps: Deps,
  input: { merchantUuid: string; endpointUuid: string; since: Date | undefined; actor: ChangeActor },
): Promise<number> {
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  if (!input.since || Number.isNaN(input.since.getTime())) invalid("since is required");
  const since = input.since;
  return deps.uow.transaction(async (stores) => {
    const endpoint = await endpointOf(stores, merchantUuid, input.endpointUuid);
    requireEnabled(endpoint);
    const now = deps.now();
    const restarted = await stores.deliveries.restartFailed(endpoint.endpointUuid, since, now);
    await stores.jobs.enqueue(restarted.map((d) => ({ deliveryUuid: d.deliveryUuid, runAt: now })));
    await recordChange(stores, deps, input.actor, { action: "webhook_endpoint.resend_failed", targetType: "webhook_endpoint", targetUuid: endpoint.endpointUuid, at: now });
    return restarted.length;
  });
}
