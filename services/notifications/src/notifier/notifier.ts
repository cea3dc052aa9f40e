import { randomInt } from "node:crypto";
import { EventEmitter } from "node:events";
import http from "node:http";
import https from "node:https";
import { run, type Runner, type Task, type WorkerPool } from "graphile-worker";
import type { Database } from "@payin/db";
import { webhookBody } from "@payin/events";
import { isUuid, uuidv7 } from "@payin/ids";
import type { Logger } from "@payin/logging";
import { decideAttempt, isSuccess, type AttemptDecision } from "../domain/retry-schedule.js";
import { signingSecrets } from "../domain/secrets.js";
import { webhookHeaders } from "../domain/signing.js";
import { checkWebhookUrl, type HostLookup } from "../domain/webhook-url.js";
import { DeliveryStore, type DeliveryToAttempt } from "./delivery-store.js";
import { EndpointLimiter } from "./endpoint-limiter.js";
import { Heartbeat } from "./heartbeat.js";
import { postWebhook, type PostResult } from "./post.js";
import { workerLogger } from "./queue.js";

export interface NotifierOptions {
  databaseUrl: string;
  db: Database;
  /** WEBHOOK_SECRET_KEY, parsed: opens the endpoints' sealed secrets. */
  sealingKey: Buffer;
  allowInsecureUrls: boolean;
  /** How receivers' names are resolved (default: the system's resolver). */
  lookup?: HostLookup;
  /** Deliveries in flight at once in this process (graphile-worker's concurrency). */
  concurrency: number;
  /** Deliveries in flight at once per endpoint in this process. */
  endpointConcurrency: number;
  /** How long a delivery waits for its saturated endpoint before its job is queued again (default 250 ms). */
  endpointWaitMs?: number;
  /** How long a receiver has to answer (the contract: 15 s). */
  timeoutMs: number;
  /** graphile-worker's poll for jobs due later (new jobs arrive by LISTEN/NOTIFY). */
  pollIntervalMs: number;
  /** graphile-worker's local queue size (0: off) and completion batching window in ms (0: off). */
  localQueueSize?: number;
  completeBatchMs?: number;
  heartbeatMs: number;
  staleAfterMs: number;
  logger: Logger;
  /** Uniform in [0, 1): the schedule's jitter. */
  random?: () => number;
  now?: () => Date;
}

/** What the notifier has done since it started, for /health. */
export interface NotifierCounters {
  attempts: number;
  succeeded: number;
  failed_attempts: number;
  deferred_for_endpoint_limit: number;
}

/**
 * The webhook delivery process's work: a graphile-worker runner whose one
 * task, `deliver` {delivery_uuid}, makes one attempt of a delivery and records
 * it with what follows (delivery-store.ts recordAttempt, one transaction); a
 * per-endpoint limit of deliveries in flight (a job for a saturated endpoint
 * is queued again a moment later instead of holding a worker); and the
 * heartbeat with its sweeper of dead notifiers' jobs.
 */
export class Notifier {
  private runner: Runner | undefined;
  private heartbeat: Heartbeat | undefined;
  private readonly store: DeliveryStore;
  private readonly limiter: EndpointLimiter;
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxFreeSockets: 64 }),
    https: new https.Agent({ keepAlive: true, maxFreeSockets: 64 }),
  };
  readonly counters: NotifierCounters = { attempts: 0, succeeded: 0, failed_attempts: 0, deferred_for_endpoint_limit: 0 };
  private readonly random: () => number;
  private readonly now: () => Date;

  constructor(private readonly options: NotifierOptions) {
    this.store = new DeliveryStore(options.db);
    this.limiter = new EndpointLimiter(options.endpointConcurrency, options.endpointWaitMs ?? 250);
    this.random = options.random ?? Math.random;
    this.now = options.now ?? (() => new Date());
  }

  /** The queue worker's id (graphile-worker's pool id: what its jobs are locked by). */
  workerId: string | undefined;

  async start(): Promise<void> {
    const task: Task = async (payload, helpers) => {
      const deliveryUuid = (payload as { delivery_uuid?: unknown } | null)?.delivery_uuid;
      if (typeof deliveryUuid !== "string" || !isUuid(deliveryUuid)) {
        this.options.logger.warn({ payload }, "deliver job without a delivery uuid: dropped");
        return;
      }
      await this.deliver(deliveryUuid, helpers.abortSignal);
    };
    let pool: WorkerPool | undefined;
    const events = new EventEmitter();
    events.on("pool:create", ({ workerPool }: { workerPool: WorkerPool }) => {
      pool = workerPool;
    });
    this.runner = await run({
      connectionString: this.options.databaseUrl,
      maxPoolSize: Math.max(4, Math.ceil(this.options.concurrency / 2) + 2),
      concurrency: this.options.concurrency,
      pollInterval: this.options.pollIntervalMs,
      noHandleSignals: true,
      taskList: { deliver: task },
      parsedCronItems: [],
      logger: workerLogger(this.options.logger),
      events,
      // Jobs still running 3 s into a stop are aborted (and run again later), well before runUntilStopped's 8 s.
      gracefulShutdownAbortTimeout: 3_000,
      preset: {
        worker: {
          ...((this.options.localQueueSize ?? 0) > 1 ? { localQueue: { size: this.options.localQueueSize! } } : {}),
          completeJobBatchDelay: (this.options.completeBatchMs ?? 0) > 0 ? this.options.completeBatchMs! : -1,
        },
      },
      // The sweeper (heartbeat.ts) hands a dead notifier's jobs back within seconds; graphile's own 4 h reset stays as a backstop.
    });
    if (!pool) throw new Error("graphile-worker started without a worker pool");
    this.workerId = pool.id;
    this.heartbeat = new Heartbeat(this.options.db, pool.id, { intervalMs: this.options.heartbeatMs, staleAfterMs: this.options.staleAfterMs }, this.options.logger);
    await this.heartbeat.start();
  }

  /** Deliveries in flight now, per endpoint. */
  inFlightCount(): number {
    return this.limiter.total();
  }

  heartbeatStatus() {
    return this.heartbeat?.status() ?? null;
  }

  /** Stops taking jobs, lets the running ones finish, then stops beating. */
  async stop(): Promise<void> {
    await this.runner?.stop().catch(() => {});
    await this.heartbeat?.stop();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** One job: one attempt of the delivery (or none, when there is nothing to do now). */
  async deliver(deliveryUuid: string, signal?: AbortSignal): Promise<void> {
    const delivery = await this.store.load(deliveryUuid);
    if (!delivery || delivery.status !== "pending") return;
    const now = this.now();
    if (!delivery.enabled) {
      await this.store.failUnattempted(deliveryUuid, now);
      return;
    }
    // A job ahead of its delivery's time (a stray one): queued again for that time.
    if (delivery.nextAttemptAt && delivery.nextAttemptAt.getTime() > now.getTime() + 2_000) {
      await this.store.requeue(deliveryUuid, delivery.nextAttemptAt);
      return;
    }
    if (!(await this.limiter.acquire(delivery.endpointUuid))) {
      this.counters.deferred_for_endpoint_limit += 1;
      await this.store.requeue(deliveryUuid, new Date(this.now().getTime() + 500 + randomInt(1_000)));
      return;
    }
    try {
      await this.attempt(delivery, signal);
    } finally {
      this.limiter.release(delivery.endpointUuid);
    }
  }

  private async attempt(delivery: DeliveryToAttempt, signal?: AbortSignal): Promise<void> {
    const attemptedAt = this.now();
    const result = await this.send(delivery, attemptedAt, signal);
    // Stopping cut the attempt short: nothing is recorded; the job is handed back at the stop (Heartbeat.stop) and runs again.
    if (result.aborted) throw new Error("the notifier stopped during the attempt; the delivery is attempted again");
    this.counters.attempts += 1;
    const success = isSuccess(result.statusCode);
    if (success) this.counters.succeeded += 1;
    else this.counters.failed_attempts += 1;
    const decision = await this.store.recordAttempt(
      {
        attemptUuid: uuidv7(),
        deliveryUuid: delivery.deliveryUuid,
        attemptedAt,
        statusCode: result.statusCode ?? 0,
        durationMs: result.durationMs,
        responseExcerpt: result.excerpt,
        error: result.error ?? "",
      },
      success,
      (roundAttempts, failingSince): AttemptDecision =>
        decideAttempt({
          statusCode: result.statusCode,
          error: result.error,
          headers: result.headers,
          roundAttempts,
          now: this.now(),
          failingSince,
          random: this.random,
        }),
    );
    if (decision && decision.kind !== "succeeded") {
      this.options.logger.info(
        { delivery_uuid: delivery.deliveryUuid, endpoint_uuid: delivery.endpointUuid, status_code: result.statusCode, error: result.error, decision },
        "webhook attempt failed",
      );
    }
  }

  /** The URL checked again, then one POST to a checked address, within the timeout all told. */
  private async send(delivery: DeliveryToAttempt, now: Date, signal?: AbortSignal): Promise<PostResult> {
    const started = performance.now();
    const check = await checkWebhookUrl(delivery.url, { allowInsecure: this.options.allowInsecureUrls, lookup: this.options.lookup });
    if (!check.ok) return { error: `refused: ${check.reason}`, excerpt: "", durationMs: Math.round(performance.now() - started) };
    let secrets: string[];
    try {
      secrets = signingSecrets(this.options.sealingKey, delivery.endpointUuid, delivery.secrets, now);
    } catch {
      // Ours to fix (WEBHOOK_SECRET_KEY), not the receiver's failure: nothing is sent or
      // recorded, and the job is tried again with graphile-worker's backoff.
      throw new Error("the endpoint's signing secret could not be opened: is WEBHOOK_SECRET_KEY the notifications service's?");
    }
    const body = webhookBody(delivery.eventType, delivery.eventCreatedAt, delivery.data);
    // The receiver's time counts from the attempt's start: resolving its name is part of it.
    const spent = performance.now() - started;
    const result = await postWebhook(check.url, {
      addresses: check.addresses,
      headers: webhookHeaders(delivery.eventUuid, now, body, secrets),
      body,
      timeoutMs: Math.max(1, Math.round(this.options.timeoutMs - spent)),
      limitMs: this.options.timeoutMs,
      signal,
      agents: this.agents,
    });
    return { ...result, durationMs: Math.round(performance.now() - started) };
  }
}
