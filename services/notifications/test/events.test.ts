import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { migrate, sql } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { Code } from "@payin/rpc";
import { createTestDatabase, expectFailure } from "@payin/testing";
import pg from "pg";
import { purgeExpiredEvents } from "../src/domain/events.js";
import { notificationsDeps } from "../src/service.js";
import { migrations } from "../src/store/migrations/index.js";
import { ormOptions } from "../src/store/orm.js";
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

describe("the events' cursor", () => {
  const ids = (page: { events: { eventUuid: string }[] }) => page.events.map((e) => e.eventUuid);

  it("lists an event recorded after a poller passed a newer one: events are listed in the order they were recorded, not of their ids", async () => {
    const m = uuidv7();
    const intentUuid = uuidv7();
    const before = uuidv7(); // an id older than both events, of no event
    // Minted in this order where the changes happened; recorded the other way round (two relays).
    const older = intentEvent(m, "pay_in_intent.paid", { intentUuid, sequence: 2 });
    const between = uuidv7();
    const newer = intentEvent(m, "pay_in_intent.created", { intentUuid, sequence: 1 });
    expect(older.eventUuid < between && between < newer.eventUuid).toBe(true);

    expect((await h.client.recordEvents({ events: [newer] })).recorded).toBe(1);
    // A poller reads the newer one and keeps it as its cursor.
    const polled = await h.client.listEvents({ merchantUuid: m, limit: 100 });
    expect(ids(polled)).toEqual([newer.eventUuid]);
    expect(polled.hasMore).toBe(false);

    expect((await h.client.recordEvents({ events: [older] })).recorded).toBe(1);
    // Asking again from its cursor, it gets the older one, and only it.
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100, after: newer.eventUuid }))).toEqual([older.eventUuid]);
    // Filtered by intent or by type, the same.
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100, after: newer.eventUuid, intentUuid }))).toEqual([older.eventUuid]);
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100, after: newer.eventUuid, types: ["pay_in_intent.paid"] }))).toEqual([older.eventUuid]);
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100, after: older.eventUuid }))).toEqual([]);
    // From the start, and page by page: in the order recorded.
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100 }))).toEqual([newer.eventUuid, older.eventUuid]);
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100, intentUuid }))).toEqual([newer.eventUuid, older.eventUuid]);
    const first = await h.client.listEvents({ merchantUuid: m, limit: 1 });
    expect([ids(first), first.hasMore]).toEqual([[newer.eventUuid], true]);
    // An id that is none of the merchant's listed events: the events whose id is greater, still in the order recorded.
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100, after: before }))).toEqual([newer.eventUuid, older.eventUuid]);
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100, after: between }))).toEqual([newer.eventUuid]);
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100, after: uuidv7() }))).toEqual([]);
    // Recorded again (a relay retrying): nothing moves.
    expect((await h.client.recordEvents({ events: [newer, older] })).recorded).toBe(0);
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100 }))).toEqual([newer.eventUuid, older.eventUuid]);
  });

  it("gives two batches of a merchant recorded at once positions in the order they commit: the later one waits, so no cursor taken meanwhile passes it", async () => {
    // A batch takes its merchants' counters in uuid order: m, then m2 or m3.
    const [m, m2, m3] = [uuidv7(), uuidv7(), uuidv7()].sort() as [string, string, string];
    await h.client.recordEvents({ events: [intentEvent(m2, "checkout.created"), intentEvent(m3, "checkout.created")] });
    // b's id is the older: paging by id, a poller that has read a would never list b.
    const b = intentEvent(m, "pay_in_intent.created");
    const a = intentEvent(m, "pay_in_intent.created");
    const lockWaits = async () =>
      Number((await h.rows<{ n: string }>(`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`))[0]!.n);
    const untilWaiting = async (n: number) => {
      for (let i = 0; i < 500 && (await lockWaits()) < n; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await lockWaits()).toBe(n);
    };
    // Another transaction holds a merchant's counter until released.
    const holdCounter = async (merchantUuid: string) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const holding = new Promise<void>((resolve) => (locked = resolve));
      const done = h.db.transaction(async (tx) => {
        await tx.query(sql(`select last from merchant_event_positions where merchant_uuid = $1 for update`), [merchantUuid]);
        locked();
        await released;
      });
      await holding;
      return async () => {
        release();
        await done;
      };
    };
    const releaseM2 = await holdCounter(m2);
    const releaseM3 = await holdCounter(m3);

    // Batch A takes m's counter, then waits for m2's, its transaction open; batch B waits for m's.
    const batchA = h.client.recordEvents({ events: [a, intentEvent(m2, "checkout.created")] });
    await untilWaiting(1);
    let bDone = false;
    const batchB = h.client.recordEvents({ events: [b, intentEvent(m3, "checkout.created")] }).then((res) => ((bDone = true), res));
    await untilWaiting(2);
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100 }))).toEqual([]);

    // A commits; B takes m's counter after it, then waits for m3's, its transaction open.
    await releaseM2();
    expect((await batchA).recorded).toBe(2);
    await untilWaiting(1);
    expect(bDone).toBe(false);
    // A poller reads a and keeps it as its cursor.
    const polled = await h.client.listEvents({ merchantUuid: m, limit: 100 });
    expect(ids(polled)).toEqual([a.eventUuid]);

    // B commits: listed after the cursor, though its id is older.
    await releaseM3();
    expect((await batchB).recorded).toBe(2);
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100, after: a.eventUuid }))).toEqual([b.eventUuid]);
    expect(ids(await h.client.listEvents({ merchantUuid: m, limit: 100 }))).toEqual([a.eventUuid, b.eventUuid]);
    const positions = await h.rows<{ event_uuid: string; position: string }>(`select event_uuid, position from events where merchant_uuid = $1 order by position`, [m]);
    expect(positions.map((r) => [r.event_uuid, Number(r.position)])).toEqual([
      [a.eventUuid, 1],
      [b.eventUuid, 2],
    ]);
  });

  it("numbers each merchant's events from 1 in the order of its batches, and test events not at all", async () => {
    const [m, n] = [uuidv7(), uuidv7()];
    const batch = [intentEvent(m, "pay_in_intent.created"), intentEvent(n, "checkout.created"), intentEvent(m, "pay_in_intent.created")];
    await h.client.recordEvents({ events: batch });
    await h.client.recordEvents({ events: [intentEvent(m, "checkout.created"), batch[0]!] });
    const rows = await h.rows<{ merchant_uuid: string; position: string }>(
      `select merchant_uuid, position from events where merchant_uuid = any($1::uuid[]) order by merchant_uuid = $2 desc, position`,
      [[m, n], m],
    );
    expect(rows.map((r) => Number(r.position))).toEqual([1, 2, 3, 1]);
    const ep = await endpoint(m);
    await h.client.sendTestEvent({ merchantUuid: m, endpointUuid: ep.endpointUuid });
    expect(await count("events", "merchant_uuid = $1 and test and position is null", [m])).toBe(1);
    expect((await h.rows<{ last: string }>(`select last from merchant_event_positions where merchant_uuid = $1`, [m]))[0]!.last).toBe("3");
  });
});

describe("the positions' migration", () => {
  it("numbers the events kept before it per merchant in the order of their ids, and the counters go on from there", async () => {
    const url = await createTestDatabase("notifications");
    await migrate({ ...ormOptions(url), migrations: migrations.slice(0, 1) });
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("set search_path to notifications");
      const [m, n] = [uuidv7(), uuidv7()];
      const ids = Array.from({ length: 5 }, () => uuidv7());
      // Inserted out of id order; one merchant's test event among them.
      const rows: [string, string, boolean][] = [
        [ids[3]!, m, false],
        [ids[0]!, m, false],
        [ids[2]!, n, false],
        [ids[1]!, m, true],
        [ids[4]!, m, false],
      ];
      for (const [id, merchant, test] of rows) {
        await client.query(
          `insert into events (event_uuid, merchant_uuid, type, sequence, created_at, recorded_at, data, test) values ($1, $2, 'checkout.created', 1, now(), now(), '{}', $3)`,
          [id, merchant, test],
        );
      }
      expect(await migrate(ormOptions(url))).toEqual(migrations.slice(1).map((x) => x.name));
      const positions = (await client.query(`select event_uuid, position from events order by event_uuid`)).rows.map((r) => [r.event_uuid, r.position === null ? null : Number(r.position)]);
      expect(positions).toEqual([
        [ids[0], 1],
        [ids[1], null],
        [ids[2], 1],
        [ids[3], 2],
        [ids[4], 3],
      ]);
      const counters = (await client.query(`select merchant_uuid, last from merchant_event_positions order by last`)).rows.map((r) => [r.merchant_uuid, Number(r.last)]);
      expect(counters).toEqual([
        [n, 1],
        [m, 3],
      ]);
    } finally {
      await client.end();
    }
  });
});
