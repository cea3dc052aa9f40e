import { appendFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { createTestDatabase } from "@payin/testing";
import { newSealingKey, Rows, startNotifierProcess, startReceiver, type NotifierProcess, type Receiver } from "./notifier-harness.js";

// Real notifier processes on one database: one killed (SIGKILL) in the middle
// of deliveries and another taking over its locked jobs (heartbeats every
// 500 ms, a notifier silent for 3 s taken for dead, instead of the defaults'
// 3 s and 15 s), and two at once.
// At most 4 deliveries in flight to one endpoint: what can come twice after a kill.
const ENDPOINT_CONCURRENCY = 4;
const FAST_SWEEP = {
  NOTIFIER_HEARTBEAT_MS: "500",
  NOTIFIER_STALE_AFTER_MS: "3000",
  NOTIFIER_CONCURRENCY: "16",
  NOTIFIER_ENDPOINT_CONCURRENCY: String(ENDPOINT_CONCURRENCY),
};
const WAIT = { timeout: 90_000, interval: 100 };
const LONG = 150_000;
let databaseUrl: string;
let rows: Rows;
const sealingKey = newSealingKey();
const running: NotifierProcess[] = [];
const receivers: Receiver[] = [];

async function notifier(logName: string, env: Record<string, string> = FAST_SWEEP): Promise<NotifierProcess> {
  const started = await startNotifierProcess({ databaseUrl, sealingKey, logName, env });
  running.push(started);
  return started;
}

beforeAll(async () => {
  databaseUrl = await createTestDatabase("notifier_replicas");
  // The first notifier migrates the schema; the rows are written after it.
  const first = await notifier("notifier-replicas-boot");
  rows = await Rows.open(databaseUrl, sealingKey);
  await first.stop();
});

afterAll(async () => {
  for (const n of running) await n.stop().catch(() => {});
  await rows?.close();
  for (const r of receivers) await r.close();
});

/** What the run saw (duplicates after a kill), kept beside the logs: notifier-measurements.jsonl. */
async function measured(line: Record<string, unknown>): Promise<void> {
  await appendFile(path.join(inject("testLogDir"), "notifier-measurements.jsonl"), JSON.stringify(line) + "\n");
}

async function endpointAndReceiver(answer?: Parameters<typeof startReceiver>[1]) {
  const { endpointUuid, secret } = await rows.endpoint("http://127.0.0.1:1/placeholder");
  const receiver = await startReceiver(secret, answer);
  receivers.push(receiver);
  await rows.query(`update webhook_endpoints set url = $2 where endpoint_uuid = $1`, [endpointUuid, receiver.url]);
  return { endpointUuid, receiver };
}

async function allSucceeded(deliveryUuids: string[]): Promise<void> {
  const { rows: left } = await rows.query<{ n: string }>(`select count(*) as n from deliveries where delivery_uuid = any($1::uuid[]) and status <> 'succeeded'`, [deliveryUuids]);
  expect(Number(left[0]!.n)).toBe(0);
}

describe("notifier processes", () => {
  it("lose nothing when one is killed mid-delivery: another takes its locked jobs over and delivers every event", async () => {
    // The receiver holds every request until the notifier is dead, then answers at once.
    let holding = true;
    const { endpointUuid, receiver } = await endpointAndReceiver((_req, res) => {
      if (!holding) res.end("ok");
    });
    const victim = await notifier("notifier-replicas-victim");
    const { eventUuids, deliveryUuids } = await rows.events(endpointUuid, 30);
    await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThanOrEqual(ENDPOINT_CONCURRENCY), WAIT);
    const { rows: locked } = await rows.query<{ n: string }>(`select count(*) as n from graphile_worker.jobs where locked_by is not null`);
    expect(Number(locked[0]!.n)).toBeGreaterThanOrEqual(1);
    await victim.kill();
    holding = false;
    const heir = await notifier("notifier-replicas-heir");
    await vi.waitFor(() => allSucceeded(deliveryUuids), WAIT);
    const counts = receiver.countsById();
    for (const id of eventUuids) expect(counts.get(id) ?? 0).toBeGreaterThanOrEqual(1);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    const duplicates = [...counts.values()].filter((n) => n > 1).length;
    // Only the requests in flight at the kill can come twice: the per-endpoint limit bounds them.
    expect(duplicates).toBeLessThanOrEqual(ENDPOINT_CONCURRENCY);
    await measured({ case: "sigkill mid-delivery", events: eventUuids.length, requests: receiver.received.length, delivered_twice: duplicates });
    // The dead notifier's heartbeat is gone, the heir's is there.
    const { rows: beats } = await rows.query<{ worker_id: string }>(`select worker_id from notifier_heartbeats`);
    expect(beats.map((b) => b.worker_id)).toEqual([(await heir.health()).worker_id]);
    await heir.stop();
  }, LONG);

  it("stop cleanly mid-delivery (SIGTERM): the attempt cut short is not recorded, its job is handed back and delivered later", async () => {
    let holding = true;
    const { endpointUuid, receiver } = await endpointAndReceiver((_req, res) => {
      if (!holding) res.end("ok");
    });
    const stopping = await notifier("notifier-replicas-stopping");
    const { deliveryUuids } = await rows.events(endpointUuid, 1);
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), WAIT);
    const started = Date.now();
    await stopping.stop();
    expect(await stopping.process.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(await rows.attempts(deliveryUuids[0]!)).toEqual([]);
    const { rows: jobs } = await rows.query<{ locked_by: string | null }>(`select locked_by from graphile_worker.jobs where key = $1`, [`delivery:${deliveryUuids[0]}`]);
    expect(jobs).toEqual([{ locked_by: null }]);
    holding = false;
    const next = await notifier("notifier-replicas-after-stop");
    await vi.waitFor(() => allSucceeded(deliveryUuids), WAIT);
    expect(receiver.received.length).toBe(2);
    await next.stop();
  }, LONG);

  it("hand back the jobs locked by a worker that never beat (killed before its first heartbeat)", async () => {
    const { endpointUuid, receiver } = await endpointAndReceiver();
    // No notifier runs: the jobs wait, and are then locked as by a notifier that died at once.
    const { eventUuids, deliveryUuids } = await rows.events(endpointUuid, 3);
    const { rowCount } = await rows.query(
      `update graphile_worker._private_jobs set locked_by = 'pool-ghost', locked_at = now() - interval '1 minute', attempts = attempts + 1
        where key = any($1::text[])`,
      [deliveryUuids.map((d) => `delivery:${d}`)],
    );
    expect(rowCount).toBe(3);
    const n = await notifier("notifier-replicas-ghost");
    await vi.waitFor(() => allSucceeded(deliveryUuids), WAIT);
    expect(new Set(receiver.received.map((r) => r.id))).toEqual(new Set(eventUuids));
    await n.stop();
  }, LONG);

  it("deliver each event once to a healthy receiver when two run at once", async () => {
    const { endpointUuid, receiver } = await endpointAndReceiver();
    const second = await endpointAndReceiver();
    // The default 15 s before a silent notifier is taken for dead: a busy machine's pause never makes one unlock the other's jobs.
    const a = await notifier("notifier-replicas-a", { NOTIFIER_CONCURRENCY: "16" });
    const b = await notifier("notifier-replicas-b", { NOTIFIER_CONCURRENCY: "16" });
    const one = await rows.events(endpointUuid, 150);
    const two = await rows.events(second.endpointUuid, 150);
    await vi.waitFor(() => allSucceeded([...one.deliveryUuids, ...two.deliveryUuids]), WAIT);
    for (const [r, ids] of [
      [receiver, one.eventUuids],
      [second.receiver, two.eventUuids],
    ] as const) {
      const counts = r.countsById();
      expect(counts.size).toBe(ids.length);
      for (const id of ids) expect(counts.get(id)).toBe(1);
    }
    const [ha, hb] = [await a.health(), await b.health()];
    const attempts = (h: Record<string, unknown>) => (h.counters as { attempts: number }).attempts;
    expect(attempts(ha) + attempts(hb)).toBe(300);
    await measured({ case: "two notifiers", events: 300, by_first: attempts(ha), by_second: attempts(hb), delivered_twice: 0 });
  }, LONG);
});
