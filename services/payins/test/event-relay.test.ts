import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { deriveCredential } from "@payin/config";
import { uuidv7 } from "@payin/ids";
import { killProcess, SERVICES, startProcess, stopProcess, type RunningProcess } from "@payin/launcher";
import { notificationsV1, payinsV1 } from "@payin/proto";
import { createServiceClient, fromTimestamp } from "@payin/rpc";
import { createTestDatabase, freePort } from "@payin/testing";

// Payins' relay hands its outbox to a real notifications service (both their
// own processes, each on its own database, with the platform's credentials
// and callers): every event arrives, within a second of its commit; events
// committed while notifications is down, or just before payins is killed,
// arrive once both run again; an event notifications refuses is set aside and
// the others go on.
const master = randomBytes(32).toString("base64url");
const spec = (name: string) => SERVICES.find((s) => s.name === name)!;
let payinsOptions: Parameters<typeof startProcess>[1];
let output: string;
let notificationsOptions: Parameters<typeof startProcess>[1];
let payinsProcess: RunningProcess | undefined;
let notificationsProcess: RunningProcess | undefined;
let payins: ReturnType<typeof createServiceClient<typeof payinsV1.PayinsService>>;
let notifications: ReturnType<typeof createServiceClient<typeof notificationsV1.NotificationsService>>;

beforeAll(async () => {
  const [payinsPort, notificationsPort] = [await freePort(), await freePort()];
  const common = { SERVICE_TOKEN: master, LOG_LEVEL: "info", PROCESS_NICE: "0", WORKER_SCHED_IDLE: "false", PAYINS_PORT: String(payinsPort), NOTIFICATIONS_PORT: String(notificationsPort) };
  output = path.join(inject("testLogDir"), `event-relay-${randomBytes(4).toString("hex")}.log`);
  notificationsOptions = { env: { ...common, DATABASE_URL: await createTestDatabase("relay_notifications") }, output, extraCallers: ["test"] };
  payinsOptions = { env: { ...common, DATABASE_URL: await createTestDatabase("relay_payins"), PAYIN_CONTEXT_CACHE_MS: "0" }, output, extraCallers: ["test"] };
  [notificationsProcess, payinsProcess] = await Promise.all([startProcess(spec("notifications"), notificationsOptions), startProcess(spec("payins"), payinsOptions)]);
  payins = createServiceClient(payinsV1.PayinsService, { baseUrl: `http://127.0.0.1:${payinsPort}`, serviceToken: deriveCredential(master, "test") });
  notifications = createServiceClient(notificationsV1.NotificationsService, { baseUrl: `http://127.0.0.1:${notificationsPort}`, serviceToken: deriveCredential(master, "test") });
}, 120_000);

afterAll(async () => {
  await Promise.all([payinsProcess && stopProcess(payinsProcess), notificationsProcess && stopProcess(notificationsProcess)]);
});

/** A checkout of the merchant (its creation is a change with an event, checkout.created, and needs no other service). */
async function createCheckout(merchantUuid: string): Promise<string> {
  const { session } = await payins.createCheckoutSession({ merchantUuid, amount: "10.5", jurisdiction: "DE", pairs: [{ asset: "usdt", rail: "bep20" }] });
  return session!.checkoutUuid;
}

/** Every event notifications keeps of the merchant, oldest first. */
async function eventsOf(merchantUuid: string): Promise<notificationsV1.Event[]> {
  const all: notificationsV1.Event[] = [];
  for (let after = ""; ; ) {
    const { events, hasMore } = await notifications.listEvents({ merchantUuid, after, limit: 100 });
    all.push(...events);
    if (!hasMore || events.length === 0) return all;
    after = events.at(-1)!.eventUuid;
  }
}

describe("payins' event relay to notifications", () => {
  it("hands every event over, each within a second of its commit", async () => {
    const merchantUuid = uuidv7();
    const checkouts = new Set<string>();
    /** When each event was first seen in notifications. */
    const seenAt = new Map<string, number>();
    let creating = true;
    const watching = (async () => {
      while (creating || seenAt.size < checkouts.size) {
        const now = Date.now();
        for (const e of await eventsOf(merchantUuid)) if (!seenAt.has(e.eventUuid)) seenAt.set(e.eventUuid, now);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    for (let i = 0; i < 20; i++) {
      await Promise.all(Array.from({ length: 5 }, async () => checkouts.add(await createCheckout(merchantUuid))));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    creating = false;
    await vi.waitFor(() => expect(seenAt.size).toBe(checkouts.size), { timeout: 15_000, interval: 50 });
    await watching;
    const events = await eventsOf(merchantUuid);
    expect(events).toHaveLength(100);
    expect(new Set(events.map((e) => e.checkoutUuid))).toEqual(checkouts);
    expect(events.every((e) => e.type === "checkout.created" && e.sequence === 1n)).toBe(true);
    const lags = events.map((e) => seenAt.get(e.eventUuid)! - fromTimestamp(e.createdAt)!.getTime()).sort((a, b) => a - b);
    // The poll above adds up to its own interval and a listing's time.
    expect(lags[Math.ceil(lags.length * 0.99) - 1]).toBeLessThan(1_000);
  }, 60_000);

  it("keeps what is committed while notifications is down, and what a killed payins had not handed over, and hands it all over later", async () => {
    const merchantUuid = uuidv7();
    await stopProcess(notificationsProcess!);
    notificationsProcess = undefined;
    const whileDown = await Promise.all(Array.from({ length: 10 }, () => createCheckout(merchantUuid)));
    // Killed with the events committed and notifications still unreachable: nothing was handed over.
    await killProcess(payinsProcess!);
    payinsProcess = undefined;
    [notificationsProcess, payinsProcess] = await Promise.all([
      startProcess(spec("notifications"), notificationsOptions),
      startProcess(spec("payins"), payinsOptions),
    ]);
    const more = await Promise.all(Array.from({ length: 5 }, () => createCheckout(merchantUuid)));
    await vi.waitFor(async () => expect(await eventsOf(merchantUuid)).toHaveLength(15), { timeout: 20_000, interval: 100 });
    const events = await eventsOf(merchantUuid);
    expect(new Set(events.map((e) => e.checkoutUuid))).toEqual(new Set([...whileDown, ...more]));
  }, 120_000);

  it("sets aside an event notifications refuses, hands over the events around it in order, and goes on with later ones", async () => {
    const merchantUuid = uuidv7();
    const payinsDb = new pg.Client({ connectionString: payinsOptions.env!.DATABASE_URL });
    await payinsDb.connect();
    try {
      // One commit: a batch with an event of a type notifications does not know (payins deployed first) between two it takes.
      const createdAt = new Date();
      const event = (type: string) => {
        const eventUuid = uuidv7();
        const checkoutUuid = uuidv7();
        return { eventUuid, type, checkoutUuid, data: JSON.stringify({ id: eventUuid, type, merchant_uuid: merchantUuid, sequence: 1, secret: "never logged" }) };
      };
      const written = [event("checkout.created"), event("checkout.expired"), event("checkout.created")];
      const [before, bad, after] = written as [ReturnType<typeof event>, ReturnType<typeof event>, ReturnType<typeof event>];
      await payinsDb.query(
        `insert into payins.event_outbox (event_uuid, merchant_uuid, type, sequence, intent_uuid, checkout_uuid, created_at, data)
           select e, $2, t, 1, null, c, $3, d from unnest($1::uuid[], $4::text[], $5::uuid[], $6::text[]) as x(e, t, c, d)`,
        [written.map((e) => e.eventUuid), merchantUuid, createdAt, written.map((e) => e.type), written.map((e) => e.checkoutUuid), written.map((e) => e.data)],
      );
      await vi.waitFor(async () => expect(await eventsOf(merchantUuid)).toHaveLength(2), { timeout: 10_000, interval: 50 });
      expect((await eventsOf(merchantUuid)).map((e) => e.eventUuid)).toEqual([before.eventUuid, after.eventUuid]);
      const outboxed = await payinsDb.query(`select 1 from payins.event_outbox where event_uuid = any($1::uuid[])`, [written.map((e) => e.eventUuid)]);
      expect(outboxed.rows).toEqual([]);
      const refused = await payinsDb.query(`select type, data, refusal_message from payins.event_outbox_refused where event_uuid = $1`, [bad.eventUuid]);
      expect(refused.rows).toEqual([{ type: "checkout.expired", data: bad.data, refusal_message: expect.stringMatching(/EVENT_INVALID|not an event type/) }]);

      // Later events go on.
      const later = await createCheckout(merchantUuid);
      await vi.waitFor(async () => expect(await eventsOf(merchantUuid)).toHaveLength(3), { timeout: 10_000, interval: 50 });
      expect((await eventsOf(merchantUuid)).at(-1)!.checkoutUuid).toBe(later);

      // Logged once, at error level, by its uuid and type, never with its data.
      const lines = (await readFile(output, "utf8")).split("\n").filter((line) => line.includes(bad.eventUuid));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 50, eventUuid: bad.eventUuid, type: "checkout.expired" });
      expect(lines[0]).not.toContain("never logged");
    } finally {
      await payinsDb.end();
    }
  }, 60_000);
});
