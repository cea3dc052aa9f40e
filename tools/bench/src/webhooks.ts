/**
 * The webhooks group of `npm run bench`: events from commit to a receiver.
 *
 * A receiver (webhook-receiver.ts, its own process) listens on loopback and is
 * the one endpoint of a ready merchant, subscribed to `pay_in_intent.created`.
 * - lag: pay-in creates offered to payins at BENCH_WEBHOOK_RATE a second
 *   (default 500) for BENCH_WEBHOOK_DURATION seconds (default 20), evenly
 *   spaced; each create's event travels payins' outbox → notifications →
 *   the notifier → the receiver. The lag of an event is its arrival minus its
 *   `created_at` (the create's own time): target p99 ≤ 1 s.
 * - throughput: BENCH_WEBHOOK_EVENTS events (default 20,000) handed to
 *   notifications (RecordEvents, 1,000 a call) as fast as it takes them; the
 *   rate is events delivered per second from the first hand-over to the last
 *   arrival: target ≥ 1,000 a second.
 * Duplicates (a webhook-id seen twice) are counted: a healthy receiver should
 * see none.
 */
import { randomUUID } from "node:crypto";
import type { WriteStream } from "node:fs";
import { create } from "@bufbuild/protobuf";
import { eventData } from "@payin/events";
import { notificationsV1, payinsV1 } from "@payin/proto";
import { createServiceClient, toTimestamp } from "@payin/rpc";
import { uuidv7 } from "@payin/ids";
import { startServerChild, stopChild, type ServerChild } from "./children.js";
import { envInt, quantile } from "./stats.js";

const RATE = envInt("BENCH_WEBHOOK_RATE", 500, 1);
const DURATION_S = envInt("BENCH_WEBHOOK_DURATION", 20, 1);
const EVENTS = envInt("BENCH_WEBHOOK_EVENTS", 20_000, 1);
const RECORD_BATCH = 1_000;
/** How long the bench waits for the last delivery before it reports what arrived. */
const DRAIN_TIMEOUT_MS = 120_000;

export const WEBHOOK_TARGETS = { lagP99Ms: 1_000, deliveriesPerS: 1_000 };

export interface WebhookResult {
  lag: { offeredPerS: number; created: number; failedCreates: number; delivered: number; duplicates: number; p50Ms: number; p99Ms: number; maxMs: number };
  throughput: { events: number; delivered: number; duplicates: number; seconds: number; perS: number };
}

interface ReceiverStats {
  deliveries: number;
  unique: number;
  duplicates: number;
  firstAt: number;
  lastAt: number;
  lags: number[];
}

function ask<T>(receiver: ServerChild, message: object, key: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (answer: Record<string, unknown>) => {
      if (answer && key in answer) {
        receiver.child.off("message", onMessage);
        resolve(answer[key] as T);
      }
    };
    receiver.child.on("message", onMessage);
    receiver.child.send(message);
  });
}

const stats = (receiver: ServerChild) => ask<ReceiverStats>(receiver, { stats: true }, "stats");

/** Waits until the receiver has seen `unique` distinct events, or the drain timeout passes. */
async function drained(receiver: ServerChild, unique: number): Promise<ReceiverStats> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const seen = await stats(receiver);
    if (seen.unique >= unique || Date.now() > deadline) return seen;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function runWebhooks(options: {
  urls: Record<string, string>;
  serviceToken: string;
  merchantUuid: string;
  jurisdiction: string;
  log: WriteStream;
  step: (text: string) => void;
}): Promise<WebhookResult> {
  const { step } = options;
  const rpc = { serviceToken: options.serviceToken };
  const notifications = createServiceClient(notificationsV1.NotificationsService, { baseUrl: options.urls.notifications!, ...rpc });
  const payins = createServiceClient(payinsV1.PayinsService, { baseUrl: options.urls.payins!, ...rpc });
  const receiver = await startServerChild("webhook-receiver.ts", {}, options.log);
  try {
    await notifications.createWebhookEndpoint({
      merchantUuid: options.merchantUuid,
      url: `http://127.0.0.1:${receiver.port}/hooks`,
      eventTypes: ["pay_in_intent.created"],
      description: "bench receiver",
    });

    // --- lag: creates at a fixed rate, each event timed from its create to its arrival
    step(`webhooks: pay-in creates at ${RATE}/s for ${DURATION_S} s, each event timed to the receiver…`);
    const count = RATE * DURATION_S;
    const expiresAt = toTimestamp(new Date(Date.now() + 3_600_000));
    let created = 0;
    let failedCreates = 0;
    const pending = new Set<Promise<void>>();
    const start = performance.now();
    for (let i = 0; i < count; i++) {
      const due = start + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const call = payins
        .createPayInIntent({ merchantUuid: options.merchantUuid, idempotencyKey: randomUUID(), asset: "usdt", amount: "1", jurisdiction: options.jurisdiction, expiresAt })
        .then(
          () => void created++,
          () => void failedCreates++,
        )
        .finally(() => pending.delete(call));
      pending.add(call);
    }
    await Promise.all(pending);
    const lagSeen = await drained(receiver, created);
    const lags = Float64Array.from(lagSeen.lags).sort();
    const lag = {
      offeredPerS: RATE,
      created,
      failedCreates,
      delivered: lagSeen.unique,
      duplicates: lagSeen.duplicates,
      p50Ms: quantile(lags, 0.5),
      p99Ms: quantile(lags, 0.99),
      maxMs: lags.length ? lags[lags.length - 1]! : 0,
    };

    // --- throughput: a backlog handed over at once, delivered as fast as it goes
    await ask(receiver, { reset: true }, "reset");
    step(`webhooks: ${EVENTS.toLocaleString("en")} events handed to notifications at once, delivered to the receiver…`);
    const handedAt = Date.now();
    for (let first = 0; first < EVENTS; first += RECORD_BATCH) {
      const events = Array.from({ length: Math.min(RECORD_BATCH, EVENTS - first) }, () => {
        const id = uuidv7();
        const createdAt = new Date();
        const intentUuid = uuidv7();
        const data = eventData({ id, type: "pay_in_intent.created", createdAt, merchantUuid: options.merchantUuid, sequence: 1 });
        return create(notificationsV1.EventSchema, {
          eventUuid: id,
          merchantUuid: options.merchantUuid,
          type: "pay_in_intent.created",
          createdAt: toTimestamp(createdAt),
          sequence: 1n,
          intentUuid,
          dataJson: JSON.stringify(data),
        });
      });
      await notifications.recordEvents({ events }, { timeoutMs: 30_000 });
    }
    const backlog = await drained(receiver, EVENTS);
    const seconds = Math.max(0.001, (backlog.lastAt - handedAt) / 1000);
    return {
      lag,
      throughput: { events: EVENTS, delivered: backlog.unique, duplicates: backlog.duplicates, seconds, perS: backlog.unique / seconds },
    };
  } finally {
    await stopChild(receiver.child);
  }
}
