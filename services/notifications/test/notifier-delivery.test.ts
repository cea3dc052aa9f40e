import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createTestDatabase } from "@payin/testing";
import { startDnsTestServer, type DnsTestServer } from "../src/notifier/dns-test-server.js";
import { newSealingKey, Rows, startNotifierProcess, startReceiver, type NotifierProcess, type Receiver } from "./notifier-harness.js";

// One real notifier process (receivers given 3 s to answer instead of 15 s:
// WEBHOOK_TIMEOUT_MS, whose 15 s default the config's unit test checks), real
// receivers on 127.0.0.1 verifying with standardwebhooks, and a DNS server of
// the test's own that the notifier resolves names with.
const TIMEOUT_MS = 3_000;
let notifier: NotifierProcess;
let rows: Rows;
let dns: DnsTestServer;
const receivers: Receiver[] = [];
const sealingKey = newSealingKey();

beforeAll(async () => {
  const databaseUrl = await createTestDatabase("notifier");
  dns = await startDnsTestServer({ "inside.test": ["10.20.30.40"], "meta.test": ["169.254.169.254"] });
  notifier = await startNotifierProcess({
    databaseUrl,
    sealingKey,
    logName: "notifier-delivery",
    env: { WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_DNS_SERVERS: dns.address, NOTIFIER_CONCURRENCY: "16", NOTIFIER_ENDPOINT_CONCURRENCY: "4" },
  });
  rows = await Rows.open(databaseUrl, sealingKey);
});

afterAll(async () => {
  await notifier?.stop();
  await rows?.close();
  await dns?.close();
  for (const r of receivers) await r.close();
});

async function receiver(secret: string, answer?: Parameters<typeof startReceiver>[1]): Promise<Receiver> {
  const r = await startReceiver(secret, answer);
  receivers.push(r);
  return r;
}

/** Creates the endpoint first (its secret), then its receiver, then points the endpoint at it. */
async function setUp(answer?: Parameters<typeof startReceiver>[1]) {
  const { endpointUuid, secret } = await rows.endpoint("http://127.0.0.1:1/placeholder");
  const r = await receiver(secret, answer);
  await rows.query(`update webhook_endpoints set url = $2 where endpoint_uuid = $1`, [endpointUuid, r.url]);
  return { endpointUuid, secret, receiver: r };
}

const WAIT = { timeout: 45_000, interval: 50 };
const LONG = 120_000;

describe("the notifier", { timeout: LONG }, () => {
  it("delivers an event signed per Standard Webhooks, and records the attempt", async () => {
    const { endpointUuid, receiver: r } = await setUp();
    const { eventUuids, deliveryUuids } = await rows.events(endpointUuid);
    await vi.waitFor(() => expect(r.received).toHaveLength(1), WAIT);
    const [got] = r.received;
    expect(got!.verified).toBe(true);
    expect(got!.id).toBe(eventUuids[0]);
    expect(got!.headers["content-type"]).toBe("application/json");
    expect(Math.abs(Number(got!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    const body = JSON.parse(got!.body);
    expect(body).toMatchObject({ type: "pay_in_intent.created", data: { id: eventUuids[0], sequence: 1 } });
    expect(typeof body.timestamp).toBe("string");
    await vi.waitFor(async () => expect(await rows.delivery(deliveryUuids[0]!)).toMatchObject({ status: "succeeded", attempt_count: 1 }), WAIT);
    const [attempt] = await rows.attempts(deliveryUuids[0]!);
    expect(attempt).toMatchObject({ status_code: 200, response_excerpt: "ok", error: "" });
    const health = await notifier.health();
    expect(health).toMatchObject({ status: "ok" });
    expect(typeof health.pending).toBe("number");
    expect(typeof health.oldest_due_age_ms).toBe("number");
  });

  it("retries a failing receiver with the same webhook-id about 5 s later, then succeeds and clears the endpoint's failing mark", async () => {
    let calls = 0;
    const { endpointUuid, receiver: r } = await setUp((_req, res) => {
      calls += 1;
      res.statusCode = calls === 1 ? 500 : 204;
      res.end(calls === 1 ? "try later" : "");
    });
    const { eventUuids, deliveryUuids } = await rows.events(endpointUuid);
    await vi.waitFor(async () => expect((await rows.endpointRow(endpointUuid)).failing_since).not.toBeNull(), WAIT);
    await vi.waitFor(() => expect(r.received).toHaveLength(2), WAIT);
    expect(r.received.map((x) => x.id)).toEqual([eventUuids[0], eventUuids[0]]);
    expect(r.received.every((x) => x.verified)).toBe(true);
    await vi.waitFor(async () => expect(await rows.delivery(deliveryUuids[0]!)).toMatchObject({ status: "succeeded", attempt_count: 2, round_attempts: 2 }), WAIT);
    const attempts = await rows.attempts(deliveryUuids[0]!);
    expect(attempts.map((a) => [a.status_code, a.response_excerpt])).toEqual([
      [500, "try later"],
      [204, ""],
    ]);
    // 5 s less at most 10 % jitter, between the notifier's own attempt times.
    expect(attempts[1]!.attempted_at.getTime() - attempts[0]!.attempted_at.getTime()).toBeGreaterThanOrEqual(4_500);
    expect((await rows.endpointRow(endpointUuid)).failing_since).toBeNull();
  });

  it("counts a receiver that does not answer in time as a failure and schedules a retry", async () => {
    const { endpointUuid } = await setUp(() => {
      // Never answers.
    });
    const { deliveryUuids } = await rows.events(endpointUuid);
    await vi.waitFor(async () => expect(await rows.attempts(deliveryUuids[0]!)).toHaveLength(1), WAIT);
    const [attempt] = await rows.attempts(deliveryUuids[0]!);
    expect(attempt!.status_code).toBe(0);
    expect(attempt!.error).toContain(`no answer within ${TIMEOUT_MS} ms`);
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    const delivery = await rows.delivery(deliveryUuids[0]!);
    expect(delivery).toMatchObject({ status: "pending", attempt_count: 1 });
    expect(delivery.next_attempt_at).not.toBeNull();
  });

  it("disables the endpoint on 410 Gone and fails its pending deliveries", async () => {
    const { endpointUuid, receiver: r } = await setUp((_req, res) => {
      res.statusCode = 410;
      res.end("gone");
    });
    const { deliveryUuids } = await rows.events(endpointUuid, 3);
    await vi.waitFor(async () => expect(await rows.endpointRow(endpointUuid)).toMatchObject({ enabled: false, disabled_reason: "gone" }), WAIT);
    await vi.waitFor(async () => {
      for (const d of deliveryUuids) expect((await rows.delivery(d)).status).toBe("failed");
    }, WAIT);
    expect(r.received.length).toBeGreaterThanOrEqual(1);
    expect(r.received.length).toBeLessThanOrEqual(3);
  });

  it("honours Retry-After on 429: the next attempt waits as long as asked when that is longer than the schedule's 5 s", async () => {
    let calls = 0;
    const { endpointUuid, receiver: r } = await setUp((_req, res) => {
      calls += 1;
      if (calls === 1) {
        res.writeHead(429, { "retry-after": "9" });
        res.end("slow down");
      } else res.end("ok");
    });
    const { deliveryUuids } = await rows.events(endpointUuid);
    await vi.waitFor(async () => expect(await rows.attempts(deliveryUuids[0]!)).toHaveLength(1), WAIT);
    const delivery = await rows.delivery(deliveryUuids[0]!);
    const [attempt] = await rows.attempts(deliveryUuids[0]!);
    expect(delivery.next_attempt_at!.getTime() - attempt!.attempted_at.getTime()).toBeGreaterThanOrEqual(9_000);
    await vi.waitFor(() => expect(r.received).toHaveLength(2), WAIT);
    await vi.waitFor(async () => expect(await rows.attempts(deliveryUuids[0]!)).toHaveLength(2), WAIT);
    const attempts = await rows.attempts(deliveryUuids[0]!);
    expect(attempts[1]!.attempted_at.getTime() - attempts[0]!.attempted_at.getTime()).toBeGreaterThanOrEqual(9_000);
  });

  it("does not hold up a healthy endpoint of the same merchant behind one that hangs", async () => {
    const hanging = await setUp(() => {
      // Holds every request until the receiver closes.
    });
    const healthy = await setUp();
    await rows.events(hanging.endpointUuid, 12);
    await vi.waitFor(() => expect(hanging.receiver.received.length).toBeGreaterThanOrEqual(4), WAIT);
    const started = Date.now();
    const { eventUuids } = await rows.events(healthy.endpointUuid, 12);
    await vi.waitFor(() => expect(new Set(healthy.receiver.received.map((x) => x.id))).toEqual(new Set(eventUuids)), WAIT);
    // All twelve came while the hanging endpoint's first requests were still held (3 s timeout).
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 4);
    // Never more than the per-endpoint limit in flight to the hanging one at a time.
    const firstWave = hanging.receiver.received.filter((x) => x.at < hanging.receiver.received[0]!.at + TIMEOUT_MS / 2);
    expect(firstWave.length).toBeLessThanOrEqual(4);
  });

  it("refuses at delivery an endpoint whose name now resolves to a private or metadata address, and never connects", async () => {
    const { endpointUuid, receiver: r } = await setUp();
    await rows.query(`update webhook_endpoints set url = $2 where endpoint_uuid = $1`, [endpointUuid, `http://inside.test:${r.port}/hooks`]);
    const { deliveryUuids } = await rows.events(endpointUuid);
    await vi.waitFor(async () => expect(await rows.attempts(deliveryUuids[0]!)).toHaveLength(1), WAIT);
    const [attempt] = await rows.attempts(deliveryUuids[0]!);
    expect(attempt!.error).toBe("refused: the host inside.test resolves to a refused address: 10.20.30.40 is not a public address (private)");
    expect(attempt!.status_code).toBe(0);

    const meta = await setUp();
    await rows.query(`update webhook_endpoints set url = $2 where endpoint_uuid = $1`, [meta.endpointUuid, `http://meta.test/latest/meta-data/`]);
    const second = await rows.events(meta.endpointUuid);
    await vi.waitFor(async () => expect(await rows.attempts(second.deliveryUuids[0]!)).toHaveLength(1), WAIT);
    expect((await rows.attempts(second.deliveryUuids[0]!))[0]!.error).toContain("169.254.169.254 is not a public address (linkLocal)");

    for (const literal of ["http://10.0.0.1/", "http://169.254.169.254/", "http://[fd00::1]/"]) {
      const ep = await setUp();
      await rows.query(`update webhook_endpoints set url = $2 where endpoint_uuid = $1`, [ep.endpointUuid, literal]);
      const made = await rows.events(ep.endpointUuid);
      await vi.waitFor(async () => expect(await rows.attempts(made.deliveryUuids[0]!)).toHaveLength(1), WAIT);
      expect((await rows.attempts(made.deliveryUuids[0]!))[0]!.error).toMatch(/^refused: /);
    }
    expect(r.received).toHaveLength(0);
  });

  it("connects to the address it checked, naming the URL's host: a name resolving to loopback (allowed here) is delivered", async () => {
    const { endpointUuid, receiver: r } = await setUp();
    dns.set("receiver.test", ["127.0.0.1"]);
    await rows.query(`update webhook_endpoints set url = $2 where endpoint_uuid = $1`, [endpointUuid, `http://receiver.test:${r.port}/hooks`]);
    const { eventUuids } = await rows.events(endpointUuid);
    await vi.waitFor(() => expect(r.received).toHaveLength(1), WAIT);
    expect(r.received[0]).toMatchObject({ id: eventUuids[0], verified: true });
    expect(r.received[0]!.headers.host).toBe(`receiver.test:${r.port}`);
  });
});
