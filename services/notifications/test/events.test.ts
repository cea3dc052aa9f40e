import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { uuidv7 } from "@payin/ids";
import { Code } from "@payin/rpc";
import { expectFailure } from "@payin/testing";
import { purgeExpiredEvents } from "../src/domain/events.js";
import { notificationsDeps } from "../src/service.js";
import { ASSERTIONS, intentEvent, jobKeys, SEALING_KEY, startNotifications, type Harness } from "./harness.js";

let h: Harness;

beforeAll(async () => {
  h = await startNotifications();
});
afterAll(async () => {
  await h?.close();
});

const count = async (table: string, where = "true", values: unknown[] = []) => Number((await h.rows<{ n: string }>(`select count(*) as n from ${table} where ${where}`, values))[0]!.n);

async function endpoint(merchantUuid: string, eventTypes: string[] = [], url = "https://hooks.example.com/webhooks") {
  return (await h.client.createWebhookEndpoint({ merchantUuid, url, eventTypes })).endpoint!;
}

describe("RecordEvents", () => {
  it("keeps each event once, and gives each new one a delivery and a job for every enabled endpoint of its merchant that subscribes to its type", async () => {
    const a = uuidv7();
    const b = uuidv7();
    const all = await endpoint(a);
    const paidOnly = await endpoint(a, ["pay_in_intent.paid"]);
    const off = await endpoint(a);
    await h.client.updateWebhookEndpoint({ merchantUuid: a, endpointUuid: off.endpointUuid, enabled: false });
    const other = await endpoint(b);
    const intentUuid = uuidv7();
    const batch = [
      intentEvent(a, "pay_in_intent.created", { intentUuid, sequence: 1 }),
      intentEvent(a, "pay_in_intent.paid", { intentUuid, sequence: 2 }),
      intentEvent(b, "checkout.created"),
    ];
    const jobsBefore = (await jobKeys(h)).length;
    expect((await h.client.recordEvents({ events: batch })).recorded).toBe(3);

    const deliveries = await h.rows<{ delivery_uuid: string; event_uuid: string; endpoint_uuid: string; status: string }>(
      `select delivery_uuid, event_uuid, endpoint_uuid, status from deliveries where event_uuid = any($1::uuid[])`,
      [batch.map((e) => e.eventUuid)],
    );
    const pairs = deliveries.map((d) => `${d.event_uuid}>${d.endpoint_uuid}`).sort();
    expect(pairs).toEqual(
      [
        `${batch[0]!.eventUuid}>${all.endpointUuid}`,
        `${batch[1]!.eventUuid}>${all.endpointUuid}`,
        `${batch[1]!.eventUuid}>${paidOnly.endpointUuid}`,
        `${batch[2]!.eventUuid}>${other.endpointUuid}`,
      ].sort(),
    );
    expect(deliveries.every((d) => d.status === "pending")).toBe(true);
    // One `deliver` job per delivery, keyed by it, naming it.
    const jobs = await h.rows<{ key: string; payload: { delivery_uuid: string }; identifier: string }>(
      `select j.key, j.payload, t.identifier from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
        where j.key = any($1::text[])`,
      [deliveries.map((d) => `delivery:${d.delivery_uuid}`)],
    );
    expect(jobs.map((j) => j.payload.delivery_uuid).sort()).toEqual(deliveries.map((d) => d.delivery_uuid).sort());
    expect(new Set(jobs.map((j) => j.identifier))).toEqual(new Set(["deliver"]));
    expect((await jobKeys(h)).length).toBe(jobsBefore + 4);

    // The same batch again (a sender retrying after a crash): nothing new, nothing doubled.
    expect((await h.client.recordEvents({ events: batch })).recorded).toBe(0);
    expect(await count("events", "event_uuid = any($1::uuid[])", [batch.map((e) => e.eventUuid)])).toBe(3);
    expect(await count("deliveries", "event_uuid = any($1::uuid[])", [batch.map((e) => e.eventUuid)])).toBe(4);
    expect((await jobKeys(h)).length).toBe(jobsBefore + 4);

    // A batch holding one known event and one new one, the new one twice: one is recorded.
    const fresh = intentEvent(a, "pay_in_intent.awaiting_payment", { intentUuid, sequence: 3 });
    expect((await h.client.recordEvents({ events: [batch[0]!, fresh, fresh] })).recorded).toBe(1);
    expect(await count("deliveries", "event_uuid = $1", [fresh.eventUuid])).toBe(1);
    expect((await jobKeys(h)).length).toBe(jobsBefore + 5);
  });

  it("refuses a batch with one malformed event whole (EVENT_INVALID), writing nothing", async () => {
    const m = uuidv7();
    await endpoint(m);
    const good = intentEvent(m, "pay_in_intent.created");
    const bad = (change: Record<string, unknown>) => ({ ...intentEvent(m, "pay_in_intent.paid"), ...change });
    const cases = [
      bad({ eventUuid: "not-a-uuid" }),
      bad({ eventUuid: uuidv7().toUpperCase() }),
      bad({ merchantUuid: "" }),
      bad({ type: "pay_in_intent.refunded" }),
      bad({ type: "webhook.test" }),
      bad({ type: "PAY_IN_INTENT.PAID" }),
      bad({ createdAt: undefined }),
      bad({ sequence: 0n }),
      bad({ intentUuid: undefined }),
      bad({ intentUuid: "x" }),
      bad({ dataJson: "" }),
      bad({ dataJson: "[1,2]" }),
      bad({ dataJson: "null" }),
      bad({ dataJson: '{"a":' }),
      bad({ dataJson: `{"a":"${"x".repeat(300_000)}"}` }),
      { ...intentEvent(m, "checkout.paid"), checkoutUuid: undefined },
    ];
    for (const event of cases) {
      await expectFailure(h.client.recordEvents({ events: [good, event as never] }), Code.InvalidArgument, "EVENT_INVALID");
    }
    await expectFailure(h.client.recordEvents({ events: [] }), Code.InvalidArgument, "EVENT_INVALID");
    await expectFailure(h.client.recordEvents({ events: Array.from({ length: 1001 }, () => intentEvent(m, "pay_in_intent.created")) }), Code.InvalidArgument, "EVENT_INVALID");
    expect(await count("events", "merchant_uuid = $1", [m])).toBe(0);
    expect(await count("deliveries", "merchant_uuid = $1", [m])).toBe(0);
  });

  it("takes a full batch of 1,000 events in one call", async () => {
    const m = uuidv7();
    await endpoint(m);
    await endpoint(m, ["pay_in_intent.created"]);
    const events = Array.from({ length: 1000 }, (_, i) => intentEvent(m, "pay_in_intent.created", { sequence: i + 1 }));
    expect((await h.client.recordEvents({ events })).recorded).toBe(1000);
    expect(await count("deliveries", "merchant_uuid = $1", [m])).toBe(2000);
  });
});

describe("ListEvents and GetEvent", () => {
  const m = uuidv7();
  const i1 = uuidv7();
  const i2 = uuidv7();
  let events: ReturnType<typeof intentEvent>[];

  beforeAll(async () => {
    events = [
      intentEvent(m, "pay_in_intent.created", { intentUuid: i1, sequence: 1 }),
      intentEvent(m, "pay_in_intent.created", { intentUuid: i2, sequence: 1 }),
      intentEvent(m, "pay_in_intent.awaiting_payment", { intentUuid: i1, sequence: 2 }),
      intentEvent(m, "pay_in_intent.paid", { intentUuid: i1, sequence: 3 }),
      intentEvent(m, "pay_in_intent.paid", { intentUuid: i2, sequence: 2 }),
    ];
    await h.client.recordEvents({ events });
  });

  it("answers a merchant's events oldest first, a page after a cursor, with whether more follow", async () => {
    const ids = events.map((e) => e.eventUuid);
    const first = await h.client.listEvents({ merchantUuid: m, limit: 2 });
    expect(first.events.map((e) => e.eventUuid)).toEqual(ids.slice(0, 2));
    expect(first.hasMore).toBe(true);
    const second = await h.client.listEvents({ merchantUuid: m, limit: 2, after: ids[1]! });
    expect(second.events.map((e) => e.eventUuid)).toEqual(ids.slice(2, 4));
    expect(second.hasMore).toBe(true);
    const last = await h.client.listEvents({ merchantUuid: m, limit: 2, after: ids[3]! });
    expect(last.events.map((e) => e.eventUuid)).toEqual(ids.slice(4));
    expect(last.hasMore).toBe(false);
    const one = first.events[0]!;
    expect({ type: one.type, sequence: one.sequence, intentUuid: one.intentUuid, merchantUuid: one.merchantUuid, dataJson: one.dataJson }).toEqual({
      type: "pay_in_intent.created",
      sequence: 1n,
      intentUuid: i1,
      merchantUuid: m,
      dataJson: events[0]!.dataJson,
    });
  });

  it("filters by types and by intent", async () => {
    const paid = await h.client.listEvents({ merchantUuid: m, limit: 100, types: ["pay_in_intent.paid"] });
    expect(paid.events.map((e) => e.eventUuid)).toEqual([events[3]!.eventUuid, events[4]!.eventUuid]);
    const ofI1 = await h.client.listEvents({ merchantUuid: m, limit: 100, intentUuid: i1 });
    expect(ofI1.events.map((e) => e.sequence)).toEqual([1n, 2n, 3n]);
    const both = await h.client.listEvents({ merchantUuid: m, limit: 100, intentUuid: i2, types: ["pay_in_intent.paid", "pay_in_intent.awaiting_payment"] });
    expect(both.events.map((e) => e.eventUuid)).toEqual([events[4]!.eventUuid]);
  });

  it("answers one event; another merchant's, a malformed id or an unknown one is EVENT_NOT_FOUND", async () => {
    expect((await h.client.getEvent({ merchantUuid: m, eventUuid: events[2]!.eventUuid })).event?.type).toBe("pay_in_intent.awaiting_payment");
    const other = uuidv7();
    expect((await h.client.listEvents({ merchantUuid: other, limit: 100 })).events).toEqual([]);
    for (const [merchantUuid, eventUuid] of [
      [other, events[2]!.eventUuid],
      [m, uuidv7()],
      [m, "nope"],
      [m, events[2]!.eventUuid.toUpperCase()],
    ] as const) {
      await expectFailure(h.client.getEvent({ merchantUuid, eventUuid }), Code.NotFound, "EVENT_NOT_FOUND");
    }
  });

  it("refuses malformed listings with INVALID_ARGUMENT", async () => {
    for (const req of [
      { merchantUuid: m, limit: 0 },
      { merchantUuid: m, limit: 101 },
      { merchantUuid: "nope", limit: 10 },
      { merchantUuid: m, limit: 10, after: "nope" },
      { merchantUuid: m, limit: 10, types: ["pay_in_intent.nope"] },
      { merchantUuid: m, limit: 10, types: ["webhook.test"] },
      { merchantUuid: m, limit: 10, intentUuid: "nope" },
    ]) {
      await expectFailure(h.client.listEvents(req), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
  });

  it("keeps events for the retention period only: older ones are neither listed nor answered, and the purge deletes them with their deliveries", async () => {
    const r = uuidv7();
    await endpoint(r);
    const old = intentEvent(r, "pay_in_intent.created", { createdAt: new Date(Date.now() - 31 * 24 * 3600 * 1000) });
    const young = intentEvent(r, "pay_in_intent.created", { createdAt: new Date(Date.now() - 29 * 24 * 3600 * 1000) });
    expect((await h.client.recordEvents({ events: [old, young] })).recorded).toBe(2);
    expect((await h.client.listEvents({ merchantUuid: r, limit: 10 })).events.map((e) => e.eventUuid)).toEqual([young.eventUuid]);
    await expectFailure(h.client.getEvent({ merchantUuid: r, eventUuid: old.eventUuid }), Code.NotFound, "EVENT_NOT_FOUND");
    expect(await count("deliveries", "event_uuid = $1", [old.eventUuid])).toBe(1);
    const deps = notificationsDeps({ db: h.db, assertionKey: ASSERTIONS.verifyingKey, sealingKey: SEALING_KEY });
    expect(await purgeExpiredEvents(deps, 1)).toBeGreaterThanOrEqual(1);
    expect(await count("events", "event_uuid = $1", [old.eventUuid])).toBe(0);
    expect(await count("deliveries", "event_uuid = $1", [old.eventUuid])).toBe(0);
    expect(await count("events", "event_uuid = $1", [young.eventUuid])).toBe(1);
  });

  it("records an event's created_at as given, not when it arrived", async () => {
    const at = new Date("2026-11-20T10:00:00.123Z");
    const e = intentEvent(uuidv7(), "checkout.started", { createdAt: at });
    await h.client.recordEvents({ events: [{ ...e, createdAt: timestampFromDate(at) }] });
    const [row] = await h.rows<{ created_at: string }>(`select created_at from events where event_uuid = $1`, [e.eventUuid]);
    expect(new Date(row!.created_at).toISOString()).toBe(at.toISOString());
  });
});
