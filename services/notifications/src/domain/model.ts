import type { AuditOutboxStore, OutboxActorKind } from "@payin/db";

/** An event as kept: what happened, to which resource, in which order, and its `data` JSON text. */
export interface StoredEvent {
  eventUuid: string;
  merchantUuid: string;
  type: string;
  sequence: number;
  intentUuid: string | null;
  checkoutUuid: string | null;
  /** When the change happened (the change's own transaction time). */
  createdAt: Date;
  /** When this service took it. */
  recordedAt: Date;
  /** The event's `data`, delivered verbatim. */
  data: string;
  /** A `webhook.test` event: sent to one endpoint, never listed. */
  test: boolean;
}

export type DisabledReason = "gone" | "failing";

/** A webhook endpoint as answered (its secrets never are). */
export interface WebhookEndpoint {
  endpointUuid: string;
  merchantUuid: string;
  url: string;
  description: string;
  /** Empty: every type. */
  eventTypes: string[];
  enabled: boolean;
  disabledReason: DisabledReason | null;
  disabledAt: Date | null;
  failingSince: Date | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** An endpoint's signing secrets, sealed (@payin/sealing) as they are kept. */
export interface SealedSecrets {
  secretSealed: Buffer;
  previousSecretSealed: Buffer | null;
  previousSecretExpiresAt: Date | null;
}

export type DeliveryStatus = "pending" | "succeeded" | "failed";
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ["pending", "succeeded", "failed"];

export interface DeliveryAttempt {
  attemptedAt: Date;
  statusCode: number;
  durationMs: number;
  responseExcerpt: string;
  error: string;
}

/** What became of one event for one endpoint. */
export interface Delivery {
  deliveryUuid: string;
  eventUuid: string;
  endpointUuid: string;
  merchantUuid: string;
  eventType: string;
  status: DeliveryStatus;
  attemptCount: number;
  roundAttempts: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DeliveryWithAttempts extends Delivery {
  attempts: DeliveryAttempt[];
}

/** A delivery to create: due at once. */
export interface NewDelivery {
  deliveryUuid: string;
  eventUuid: string;
  endpointUuid: string;
  merchantUuid: string;
  eventType: string;
  nextAttemptAt: Date;
  createdAt: Date;
}

/** A delivery whose job the queue must hold (the notifier attempts it at `runAt`). */
export interface DueDelivery {
  deliveryUuid: string;
  runAt: Date;
}

/** Who made a change, as the service stamped it (rpc/actor.ts). */
export interface ChangeActor {
  actorKind: OutboxActorKind;
  actorUuid: string | null;
  actorOsUser: string | null;
  requestId: string | null;
}

export interface EventQuery {
  merchantUuid: string;
  /**
   * Only events recorded after this one of the merchant's listed events (by
   * position); another id: the events whose id is greater.
   */
  after: string | null;
  types: readonly string[];
  intentUuid: string | null;
  /** Only events created at or after this instant (the retention period). */
  since: Date;
  limit: number;
}

export interface DeliveryQuery {
  merchantUuid: string;
  endpointUuid: string | null;
  eventUuid: string | null;
  status: DeliveryStatus | null;
  /** Only deliveries older than this one (newest first). */
  before: { createdAt: Date; deliveryUuid: string } | null;
  limit: number;
}

export interface EventStore {
  /**
   * Inserts the events no row has yet (by uuid), each listed one with its
   * merchant's next position (the merchant's counter stays locked until the
   * transaction ends); answers those inserted.
   */
  insertNew(events: readonly StoredEvent[]): Promise<StoredEvent[]>;
  /** One event of the merchant created at or after `since`; test events only when `includeTest`. */
  get(merchantUuid: string, eventUuid: string, since: Date, includeTest: boolean): Promise<StoredEvent | null>;
  /** Listed events (never test ones) in the order they were recorded (their merchant's positions). */
  list(query: EventQuery): Promise<StoredEvent[]>;
  /** Deletes up to `limit` events created before `before` (with their deliveries); answers how many. */
  purge(before: Date, limit: number): Promise<number>;
}

export interface EndpointStore {
  /** Serialises the endpoint changes of one merchant until the transaction ends (the limit's count). */
  lockMerchant(merchantUuid: string): Promise<void>;
  count(merchantUuid: string): Promise<number>;
  insert(endpoint: WebhookEndpoint, secrets: SealedSecrets): Promise<void>;
  /** The merchant's endpoints, oldest first. */
  list(merchantUuid: string): Promise<WebhookEndpoint[]>;
  /** One endpoint of the merchant; `forUpdate` locks it until the transaction ends. */
  get(merchantUuid: string, endpointUuid: string, forUpdate?: boolean): Promise<WebhookEndpoint | null>;
  /** Writes url, description, event types, enabled, disabled reason/at, failing since, updated at. */
  update(endpoint: WebhookEndpoint): Promise<void>;
  setSecrets(endpointUuid: string, secrets: SealedSecrets, updatedAt: Date): Promise<void>;
  sealedSecrets(endpointUuid: string): Promise<SealedSecrets | null>;
  delete(endpointUuid: string): Promise<void>;
  /** The enabled endpoints of these merchants. */
  enabledOf(merchantUuids: readonly string[]): Promise<WebhookEndpoint[]>;
}

export interface DeliveryStore {
  /** Inserts the deliveries no (event, endpoint) has yet; answers those inserted. */
  insertNew(deliveries: readonly NewDelivery[]): Promise<Delivery[]>;
  list(query: DeliveryQuery): Promise<Delivery[]>;
  /** A delivery of the merchant (for a listing's cursor). */
  get(merchantUuid: string, deliveryUuid: string): Promise<Delivery | null>;
  attemptsOf(deliveryUuids: readonly string[]): Promise<Map<string, DeliveryAttempt[]>>;
  ofEvent(eventUuid: string): Promise<Delivery[]>;
  /** Sets these deliveries pending again, due at `now`, starting a new round; answers them. */
  restart(deliveryUuids: readonly string[], now: Date): Promise<Delivery[]>;
  /**
   * Sets pending again the deliveries of the endpoint that failed (given up, or
   * waiting for a retry after a failed attempt) for events created at or after `since`.
   */
  restartFailed(endpointUuid: string, since: Date, now: Date): Promise<Delivery[]>;
  /** The pending deliveries of an endpoint, locked until the transaction ends (their jobs are dropped when it is deleted). */
  pendingOf(endpointUuid: string): Promise<string[]>;
}

/** graphile-worker's queue, in the change's transaction. */
export interface JobQueue {
  /** One `deliver` job per delivery (keyed by it: a queued one is replaced, not doubled). */
  enqueue(deliveries: readonly DueDelivery[]): Promise<void>;
  /** Removes the jobs of these deliveries. */
  drop(deliveryUuids: readonly string[]): Promise<void>;
}

/** Every store, bound to one connection (and transaction, if any). */
export interface NotificationsStores {
  events: EventStore;
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  jobs: JobQueue;
  audit: AuditOutboxStore;
}

export interface UnitOfWork {
  /** Runs `work` in one transaction: everything it writes commits, or nothing does. */
  transaction<T>(work: (stores: NotificationsStores) => Promise<T>): Promise<T>;
  /** Stores for reads that need no transaction. */
  read(): NotificationsStores;
}
