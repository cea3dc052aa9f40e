import { DomainError } from "@payin/errors";
import { eventData } from "@payin/events";
import { isUuid } from "@payin/ids";
import { recordChange, type Deps } from "./deps.js";
import type { ChangeActor, NotificationsStores, StoredEvent, WebhookEndpoint } from "./model.js";
import { NotificationsReason } from "./reasons.js";
import { DEFAULT_ROTATION_GRACE_SECONDS, MAX_ROTATION_GRACE_SECONDS, newSigningKey, sealSigningKey, secretText } from "./secrets.js";
import { checkDescription, checkMerchantUuid, checkSubscribedTypes, invalid, TEST_EVENT_TYPE } from "./validation.js";

const TARGET = "webhook_endpoint";

export function endpointNotFound(): DomainError {
  return new DomainError(NotificationsReason.WebhookEndpointNotFound, "webhook endpoint not found");
}

/** The endpoint of the merchant, or WEBHOOK_ENDPOINT_NOT_FOUND (also for a malformed uuid or another merchant's). */
export async function endpointOf(stores: NotificationsStores, merchantUuid: string, endpointUuid: string, forUpdate = false): Promise<WebhookEndpoint> {
  const endpoint = isUuid(endpointUuid) ? await stores.endpoints.get(merchantUuid, endpointUuid, forUpdate) : null;
  if (!endpoint) throw endpointNotFound();
  return endpoint;
}

/** An endpoint that may be sent to now; WEBHOOK_ENDPOINT_DISABLED otherwise. */
export function requireEnabled(endpoint: WebhookEndpoint): void {
  if (!endpoint.enabled) throw new DomainError(NotificationsReason.WebhookEndpointDisabled, "the webhook endpoint is disabled: enable it first");
}

/** A URL that may receive webhooks, normalised; WEBHOOK_URL_INVALID with the guard's reason otherwise. */
async function checkedUrl(deps: Deps, url: string): Promise<string> {
  if (url === "") invalid("url is required", NotificationsReason.WebhookUrlInvalid);
  const check = await deps.checkUrl(url);
  if (!check.ok) invalid(`url: ${check.reason}`, NotificationsReason.WebhookUrlInvalid);
  return check.url.href;
}

/**
 * Adds an endpoint with a new signing secret, answered this once. Refused
 * before anything is written when an argument is wrong; past the merchant's
 * limit WEBHOOK_ENDPOINT_LIMIT (endpoint changes of one merchant take turns,
 * so two at once cannot both pass the count).
 */
export async function createEndpoint(
  deps: Deps,
  input: { merchantUuid: string; url: string; eventTypes: readonly string[]; description: string; actor: ChangeActor },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  const description = checkDescription(input.description);
  const eventTypes = checkSubscribedTypes(input.eventTypes);
  const url = await checkedUrl(deps, input.url);
  return deps.uow.transaction(async (stores) => {
    await stores.endpoints.lockMerchant(merchantUuid);
    if ((await stores.endpoints.count(merchantUuid)) >= deps.endpointLimit) {
      throw new DomainError(NotificationsReason.WebhookEndpointLimit, `a merchant has at most ${deps.endpointLimit} webhook endpoints: delete one first`);
    }
    const now = deps.now();
    const endpoint: WebhookEndpoint = {
      endpointUuid: deps.newUuid(),
      merchantUuid,
      url,
      description,
      eventTypes,
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      previousSecretExpiresAt: null,
      createdAt: now,
      updatedAt: now,
    };
    const key = newSigningKey();
    await stores.endpoints.insert(endpoint, { secretSealed: sealSigningKey(deps.sealingKey, endpoint.endpointUuid, key), previousSecretSealed: null, previousSecretExpiresAt: null });
    await recordChange(stores, deps, input.actor, { action: `${TARGET}.create`, targetType: TARGET, targetUuid: endpoint.endpointUuid, at: now });
    return { endpoint, secret: secretText(key) };
  });
}

export async function listEndpoints(deps: Deps, merchantUuid: string): Promise<WebhookEndpoint[]> {
  return deps.uow.read().endpoints.list(checkMerchantUuid(merchantUuid));
}

export async function getEndpoint(deps: Deps, merchantUuid: string, endpointUuid: string): Promise<WebhookEndpoint> {
  return endpointOf(deps.uow.read(), checkMerchantUuid(merchantUuid), endpointUuid);
}

/**
 * Changes what is given of an endpoint's URL, event types, description and
 * enabled. Enabling one that was disabled (by a person or by the service)
 * starts it afresh: no disabled reason, no failing period.
 */
export async function updateEndpoint(
  deps: Deps,
  input: {
    merchantUuid: string;
    endpointUuid: string;
    url?: string;
    eventTypes?: readonly string[];
    description?: string;
    enabled?: boolean;
    actor: ChangeActor;
  },
): Promise<WebhookEndpoint> {
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  const description = input.description === undefined ? undefined : checkDescription(input.description);
  const eventTypes = input.eventTypes === undefined ? undefined : checkSubscribedTypes(input.eventTypes);
  // The endpoint first (NOT_FOUND before the URL's DNS), then the URL outside any transaction.
  await endpointOf(deps.uow.read(), merchantUuid, input.endpointUuid);
  const url = input.url === undefined ? undefined : await checkedUrl(deps, input.url);
  return deps.uow.transaction(async (stores) => {
    const current = await endpointOf(stores, merchantUuid, input.endpointUuid, true);
    const now = deps.now();
    const next: WebhookEndpoint = { ...current, updatedAt: now };
    if (url !== undefined) next.url = url;
    if (description !== undefined) next.description = description;
    if (eventTypes !== undefined) next.eventTypes = eventTypes;
    if (input.enabled === true && !current.enabled) Object.assign(next, { enabled: true, disabledReason: null, disabledAt: null, failingSince: null });
    if (input.enabled === false && current.enabled) Object.assign(next, { enabled: false, disabledReason: null, disabledAt: now, failingSince: null });
    await stores.endpoints.update(next);
    await recordChange(stores, deps, input.actor, { action: `${TARGET}.update`, targetType: TARGET, targetUuid: next.endpointUuid, at: now });
    return next;
  });
}

/** Removes an endpoint with its deliveries and their log; the queued jobs of its pending deliveries are dropped. */
export async function deleteEndpoint(deps: Deps, input: { merchantUuid: string; endpointUuid: string; actor: ChangeActor }): Promise<void> {
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  await deps.uow.transaction(async (stores) => {
    // Its pending deliveries locked before the endpoint, in the order an attempt in
    // flight takes them (its delivery, then its endpoint): the deletion waits for it
    // instead of deadlocking with it.
    const pending = isUuid(input.endpointUuid) ? await stores.deliveries.pendingOf(input.endpointUuid) : [];
    const endpoint = await endpointOf(stores, merchantUuid, input.endpointUuid, true);
    await stores.jobs.drop(pending);
    await stores.endpoints.delete(endpoint.endpointUuid);
    await recordChange(stores, deps, input.actor, { action: `${TARGET}.delete`, targetType: TARGET, targetUuid: endpoint.endpointUuid, at: deps.now() });
  });
}

/**
 * Replaces the signing secret; answers the new one once. The replaced one
 * keeps signing beside it for the grace period (0 to 7 days; 24 hours when
 * not given); a previous one still in its grace period is dropped.
 */
export async function rotateSecret(
  deps: Deps,
  input: { merchantUuid: string; endpointUuid: string; graceSeconds: number | undefined; actor: ChangeActor },
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  const grace = input.graceSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS;
  if (!Number.isInteger(grace) || grace < 0 || grace > MAX_ROTATION_GRACE_SECONDS) invalid(`grace_seconds must be 0 to ${MAX_ROTATION_GRACE_SECONDS} (7 days)`);
  return deps.uow.transaction(async (stores) => {
    const endpoint = await endpointOf(stores, merchantUuid, input.endpointUuid, true);
    const sealed = await stores.endpoints.sealedSecrets(endpoint.endpointUuid);
    if (!sealed) throw endpointNotFound();
    const now = deps.now();
    const key = newSigningKey();
    const previousSecretExpiresAt = grace > 0 ? new Date(now.getTime() + grace * 1000) : null;
    await stores.endpoints.setSecrets(
      endpoint.endpointUuid,
      {
        secretSealed: sealSigningKey(deps.sealingKey, endpoint.endpointUuid, key),
        previousSecretSealed: previousSecretExpiresAt ? sealed.secretSealed : null,
        previousSecretExpiresAt,
      },
      now,
    );
    await recordChange(stores, deps, input.actor, { action: `${TARGET}.rotate_secret`, targetType: TARGET, targetUuid: endpoint.endpointUuid, at: now });
    return { endpoint: { ...endpoint, previousSecretExpiresAt, updatedAt: now }, secret: secretText(key) };
  });
}

/** Sends a `webhook.test` event to one enabled endpoint: the event (never listed) and its one delivery, queued at once. */
export async function sendTestEvent(deps: Deps, input: { merchantUuid: string; endpointUuid: string; actor: ChangeActor }): Promise<StoredEvent> {
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  return deps.uow.transaction(async (stores) => {
    const endpoint = await endpointOf(stores, merchantUuid, input.endpointUuid);
    requireEnabled(endpoint);
    const now = deps.now();
    const eventUuid = deps.newUuid();
    const data = eventData({ id: eventUuid, type: TEST_EVENT_TYPE, createdAt: now, merchantUuid, sequence: 1 });
    const event: StoredEvent = {
      eventUuid,
      merchantUuid,
      type: TEST_EVENT_TYPE,
      sequence: 1,
      intentUuid: null,
      checkoutUuid: null,
      createdAt: now,
      recordedAt: now,
      data: JSON.stringify(data),
      test: true,
    };
    await stores.events.insertNew([event]);
    const made = await stores.deliveries.insertNew([
      { deliveryUuid: deps.newUuid(), eventUuid, endpointUuid: endpoint.endpointUuid, merchantUuid, eventType: TEST_EVENT_TYPE, nextAttemptAt: now, createdAt: now },
    ]);
    await stores.jobs.enqueue(made.map((d) => ({ deliveryUuid: d.deliveryUuid, runAt: now })));
    await recordChange(stores, deps, input.actor, { action: `${TARGET}.test`, targetType: TARGET, targetUuid: endpoint.endpointUuid, at: now });
    return event;
  });
}
