import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { listenForNotifications, PAYIN_CONTEXT_CHANNEL, type NotificationListener } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { merchantsV1 } from "@payin/proto";
import { activeMerchant, startMerchants, type Harness } from "./harness.js";

// The merchants schema announces every change to a merchant's pay-in context
// (what payins caches) on PAYIN_CONTEXT_CHANNEL, through triggers; payins'
// listener receives them on a connection of its own.

let h: Harness;
let listener: NotificationListener;
const payloads: string[] = [];
const events: string[] = [];
let listening: Promise<void>;
let sql: pg.Client;

const APPLICATION_NAME = "merchants test: payin context listener";

function waitFor(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const check = () => {
      if (condition()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(check, 5);
    };
    check();
  });
}

let markers = 0;

/**
 * Waits until every announcement committed so far has arrived: PostgreSQL
 * delivers notifications in commit order, so once a marker sent now arrives,
 * so have they. Answers what arrived, without the marker.
 */
async function drained(): Promise<string[]> {
  const marker = `marker-${++markers}`;
  await sql.query("select pg_notify($1, $2)", [PAYIN_CONTEXT_CHANNEL, marker]);
  await waitFor(() => payloads.includes(marker), "the marker");
  return payloads.splice(0).filter((p) => p !== marker);
}

/** The payloads announced by what `action` committed. */
async function announcedBy(action: () => Promise<unknown>): Promise<string[]> {
  await drained();
  await action();
  return drained();
}

beforeAll(async () => {
  h = await startMerchants();
  sql = new pg.Client({ connectionString: h.url });
  await sql.connect();
  await sql.query("set search_path to merchants");
  let ready: () => void;
  listening = new Promise((resolve) => (ready = resolve));
  listener = listenForNotifications({
    url: h.url,
    channel: PAYIN_CONTEXT_CHANNEL,
    applicationName: APPLICATION_NAME,
    retryMs: 50,
    onNotification: (payload) => payloads.push(payload),
    onListening: () => {
      events.push("listening");
      ready();
    },
    onLost: () => events.push("lost"),
  });
  await listening;
});

afterAll(async () => {
  await listener?.close();
  await sql?.end();
  await h?.close();
});

describe("pay-in context change announcements", () => {
  it("name the merchant on its creation and on every status change, once per transaction", async () => {
    let uuid = "";
    const created = await announcedBy(async () => {
      uuid = (await h.client.createMerchant({ displayName: "Announced" })).merchant!.uuid;
    });
    expect(created).toEqual([uuid]);
    for (const transition of [merchantsV1.MerchantTransition.ACTIVATE, merchantsV1.MerchantTransition.SUSPEND, merchantsV1.MerchantTransition.CLOSE]) {
      expect(await announcedBy(() => h.client.transitionMerchant({ uuid, transition }))).toEqual([uuid]);
    }
  });

  it("name the merchant when its payin policy or operating profile changes (a new version closes the old one: still one)", async () => {
    const uuid = await activeMerchant(h.client, "Policy changes");
    expect(await announcedBy(() => h.client.createPolicy({ merchantUuid: uuid, scope: "payin", effect: "deny" }))).toEqual([uuid]);
    expect(await announcedBy(() => h.client.createPolicy({ merchantUuid: uuid, scope: "payin", effect: "allow" }))).toEqual([uuid]);
    expect(await announcedBy(() => h.client.ensureOperatingProfile({ merchantUuid: uuid, operatingMode: "non_custodial" }))).toEqual([uuid]);
    expect(await announcedBy(() => h.client.ensureOperatingProfile({ merchantUuid: uuid, operatingMode: "hybrid" }))).toEqual([uuid]);
  });

  it("say `*` (every merchant) when a rule changes", async () => {
    const capability = `test.cap_${uuidv7().replaceAll("-", "").slice(-12)}`;
    expect(await announcedBy(() => h.client.createRule({ capability, jurisdiction: "DE", effect: "allow" }))).toEqual(["*"]);
    expect(await announcedBy(() => h.client.createRule({ capability, jurisdiction: "DE", effect: "deny" }))).toEqual(["*"]);
  });

  it("cover changes made outside the service too, and announce nothing for a transaction rolled back", async () => {
    const uuid = await activeMerchant(h.client, "Outside SQL");
    await h.client.ensureOperatingProfile({ merchantUuid: uuid, operatingMode: "non_custodial" });
    const rolledBack = await announcedBy(async () => {
      await sql.query("begin");
      await sql.query("update merchants set status = 'suspended' where uuid = $1", [uuid]);
      await sql.query("rollback");
    });
    expect(rolledBack).toEqual([]);
    expect(await announcedBy(() => sql.query("update merchants set status = 'suspended' where uuid = $1", [uuid]))).toEqual([uuid]);
    expect(await announcedBy(() => sql.query("delete from operating_profiles where merchant_uuid = $1", [uuid]))).toEqual([uuid]);
  });

  it("announce nothing for what a pay-in context is not made of (members, audit)", async () => {
    const uuid = await activeMerchant(h.client, "Members");
    const unrelated = await announcedBy(async () => {
      await h.client.ensureMember({ merchantUuid: uuid, identityUuid: uuidv7() });
      await h.client.recordAuditEvent({
        event: { actor: { kind: "identity", uuid: uuidv7(), requestId: "req-test" }, action: "merchant.update", targetType: "merchant", targetUuid: uuid, outcome: "succeeded" },
      });
    });
    expect(unrelated).toEqual([]);
  });

  it("have all arrived once sync() resolves: a change committed before it is never missed, 200 times in a row", async () => {
    const uuid = await activeMerchant(h.client, "Synced");
    await drained();
    const statuses = ["suspended", "active"];
    for (let i = 0; i < 200; i++) {
      // Committed on another connection, then caught up with at once.
      await sql.query("update merchants set status = $2 where uuid = $1", [uuid, statuses[i % 2]]);
      expect(await listener.sync()).toBe(true);
      expect(payloads.splice(0)).toEqual([uuid]);
    }
    // Calls in one turn share a round trip, and each sees what was committed before it.
    await sql.query("update merchants set status = 'suspended' where uuid = $1", [uuid]);
    expect(await Promise.all([listener.sync(), listener.sync(), listener.sync()])).toEqual([true, true, true]);
    expect(payloads.splice(0)).toEqual([uuid]);
  });

  it("reach the listener again after its connection is cut: it reports the loss, then listening, then announcements", async () => {
    events.length = 0;
    const cut = await sql.query("select pg_terminate_backend(pid) as cut from pg_stat_activity where application_name = $1", [APPLICATION_NAME]);
    expect(cut.rows).toEqual([{ cut: true }]);
    // Until it listens again, it cannot vouch for anything.
    expect(await listener.sync()).toBe(false);
    await waitFor(() => events.join(",") === "lost,listening", "the listener to reconnect");
    expect(await listener.sync()).toBe(true);
    const uuid = await activeMerchant(h.client, "After reconnect");
    expect(await announcedBy(() => h.client.createPolicy({ merchantUuid: uuid, scope: "payin", effect: "deny" }))).toEqual([uuid]);
  });
});
