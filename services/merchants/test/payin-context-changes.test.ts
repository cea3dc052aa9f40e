import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import net from "node:net";
import pg from "pg";
import { listenForNotifications, type NotificationListener } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { waitFor } from "@payin/testing";
import { merchantsV1 } from "@payin/proto";
import { PAYIN_CONTEXT_CHANNEL } from "../src/store/payin-context-feed.js";
import { activeMerchant, identityActor, startMerchants, type Harness } from "./harness.js";

// The merchants schema announces every change to a merchant's pay-in context
// (what payins caches) on PAYIN_CONTEXT_CHANNEL, through triggers; the
// service's own feed (WatchPayinContextChanges) listens to them on a
// connection of its own.

let h: Harness;
let listener: NotificationListener;
const payloads: string[] = [];
const events: string[] = [];
let listening: Promise<void>;
let sql: pg.Client;

const APPLICATION_NAME = "merchants test: payin context listener";


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
    retryMs: 300,
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

  it("name the merchant when it is bound or connected to a provider, or its connection's secret reference changes", async () => {
    const uuid = await activeMerchant(h.client, "Provider changes");
    const providerUuid = "01a2008d-7400-7000-8000-000000000001";
    expect(await announcedBy(() => h.client.ensureProviderBinding({ merchantUuid: uuid, providerUuid, capability: "crypto.payin", jurisdiction: "DE" }))).toEqual([uuid]);
    // Idempotent repeats change nothing, so announce nothing.
    expect(await announcedBy(() => h.client.ensureProviderBinding({ merchantUuid: uuid, providerUuid, capability: "crypto.payin", jurisdiction: "DE" }))).toEqual([]);
    const connected = await h.client.ensureProviderConnection({ merchantUuid: uuid, providerUuid, secretReference: "vault:kv/payin/a" });
    expect(connected.created).toBe(true);
    const connectionUuid = connected.connection!.connectionUuid;
    expect(
      await announcedBy(() => h.client.rotateProviderConnectionSecret({ merchantUuid: uuid, connectionUuid, secretReference: "vault:kv/payin/b" })),
    ).toEqual([uuid]);
    expect(await announcedBy(() => sql.query("delete from provider_connections where merchant_uuid = $1", [uuid]))).toEqual([uuid]);
    expect(await announcedBy(() => h.client.ensureProviderConnection({ merchantUuid: uuid, providerUuid }))).toEqual([uuid]);
  });

  it("say `*` (every merchant) when a rule changes", async () => {
    expect(await announcedBy(() => h.client.createRule({ capability: "crypto.payin", jurisdiction: "DE", effect: "allow" }))).toEqual(["*"]);
    expect(await announcedBy(() => h.client.createRule({ capability: "crypto.payin", jurisdiction: "DE", effect: "deny" }))).toEqual(["*"]);
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
        event: { actor: identityActor(uuidv7()), action: "merchant.update", targetType: "merchant", targetUuid: uuid, outcome: "succeeded" },
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

  it("cover TRUNCATE (everything), a deleted merchant, and a row moved to another merchant (both)", async () => {
    const [a, b] = [await activeMerchant(h.client, "Moved from"), await activeMerchant(h.client, "Moved to")];
    await h.client.createPolicy({ merchantUuid: a, scope: "payin", effect: "allow" });
    const moved = await announcedBy(() => sql.query("update policies set merchant_uuid = $2 where merchant_uuid = $1", [a, b]));
    expect(moved.sort()).toEqual([a, b].sort());
    const bare = (await h.client.createMerchant({ displayName: "Deleted" })).merchant!.uuid;
    expect(await announcedBy(() => sql.query("delete from merchants where uuid = $1", [bare]))).toEqual([bare]);
    const renamed = (await h.client.createMerchant({ displayName: "Renumbered" })).merchant!.uuid;
    const next = uuidv7();
    expect((await announcedBy(() => sql.query("update merchants set uuid = $2 where uuid = $1", [renamed, next]))).sort()).toEqual([renamed, next].sort());
    expect(await announcedBy(() => sql.query("begin; truncate operating_profiles; rollback"))).toEqual([]);
    expect(await announcedBy(() => sql.query("begin; truncate operating_profiles; commit"))).toEqual(["*"]);
  });

  it("are sent by enabled-ALWAYS row and TRUNCATE triggers on every table the pay-in context statement reads", async () => {
    const { rows } = await sql.query(`
      select c.relname as table_name, t.tgname as name, t.tgenabled as enabled
        from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
       where n.nspname = 'merchants' and t.tgfoid = to_regproc('merchants.payin_context_changed')::oid
       order by 1, 2`);
    const tables = ["merchants", "operating_profiles", "policies", "provider_bindings", "provider_connections", "rules"];
    expect(rows).toEqual(
      tables.flatMap((table) => [
        { table_name: table, name: `${table}_payin_context_changed`, enabled: "A" },
        { table_name: table, name: `${table}_payin_context_truncated`, enabled: "A" },
      ]),
    );
    // Those are exactly the tables GetPayinContext reads.
    const source = readFileSync(new URL("../src/store/payin-context-repository.ts", import.meta.url), "utf8");
    // (The statement and the provider fragments it shares with readiness.)
    const text = source.slice(source.indexOf("const providerConnected"), source.indexOf("const READINESS_INPUTS"));
    expect(text).toContain("${PROVIDER_CONNECTED}");
    expect(text).toContain("${providerConnected(");
    const read = [...text.matchAll(/\b(?:from|join)\s+(\w+)/g)].map((m) => m[1]).sort();
    expect([...new Set(read)]).toEqual(tables);
  });

  it("share a sync round trip only among calls made before it is sent", async () => {
    const first = listener.sync();
    expect(listener.sync()).toBe(first);
    await Promise.resolve();
    await Promise.resolve();
    // The first round trip is on its way now: a later call gets its own.
    const later = listener.sync();
    expect(later).not.toBe(first);
    expect(await Promise.all([first, later])).toEqual([true, true]);
  });

  it("reach the listener again after its connection is cut: it reports the loss, then listening, then announcements", async () => {
    events.length = 0;
    const cut = await sql.query("select pg_terminate_backend(pid) as cut from pg_stat_activity where application_name = $1 and datname = current_database()", [APPLICATION_NAME]);
    expect(cut.rows).toEqual([{ cut: true }]);
    // Until it listens again, it cannot vouch for anything.
    expect(await listener.sync()).toBe(false);
    await waitFor(() => events.join(",") === "lost,listening", "the listener to reconnect");
    expect(await listener.sync()).toBe(true);
    const uuid = await activeMerchant(h.client, "After reconnect");
    expect(await announcedBy(() => h.client.createPolicy({ merchantUuid: uuid, scope: "payin", effect: "deny" }))).toEqual([uuid]);
  });
});

/** A TCP proxy to PostgreSQL that can stop passing bytes on its open connections without closing them. */
async function freezableProxy(target: URL) {
  const open: { client: net.Socket; upstream: net.Socket }[] = [];
  const sockets: net.Socket[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.push(client, upstream);
    client.pipe(upstream).pipe(client);
    const ends = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", ends);
    upstream.on("error", ends);
    open.push({ client, upstream });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(target);
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    /** Stops the connections open now from passing anything, in both directions; new ones pass. */
    freeze() {
      for (const { client, upstream } of open.splice(0)) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe("the listener", () => {
  it("answers sync false within its timeout when the connection stops answering, drops it later, listens on a new one, and closes at once", async () => {
    const proxy = await freezableProxy(new URL(h.url));
    const events: string[] = [];
    const frozen = listenForNotifications({
      url: proxy.url,
      channel: PAYIN_CONTEXT_CHANNEL,
      retryMs: 50,
      syncTimeoutMs: 1_000,
      dropAfterMs: 1_500,
      onNotification: () => {},
      onListening: () => events.push("listening"),
      onLost: (error, first) => events.push(`lost${first ? " (first)" : ""}: ${error.message}`),
    });
    const listenings = () => events.filter((e) => e === "listening").length;
    try {
      await waitFor(() => listenings() === 1, "listening");
      expect(await frozen.sync()).toBe(true);
      for (let outage = 1; outage <= 2; outage++) {
        proxy.freeze();
        const started = Date.now();
        expect(await frozen.sync()).toBe(false);
        expect(Date.now() - started).toBeLessThan(2_500);
        await waitFor(() => listenings() === outage + 1, "listening again");
        expect(await frozen.sync()).toBe(true);
      }
      // Each outage is reported as a first failure again.
      const lost = "lost (first): the listening connection did not answer within 1500 ms";
      expect(events).toEqual(["listening", lost, "listening", lost, "listening"]);
      // Closing does not wait for a connection that stopped answering.
      proxy.freeze();
      const closing = Date.now();
      await frozen.close();
      expect(Date.now() - closing).toBeLessThan(1_000);
    } finally {
      await frozen.close();
      await proxy.close();
    }
  });

  it("does not listen while `verify` refuses, reports the outage once, and keeps trying", async () => {
    const events: string[] = [];
    let checks = 0;
    const refused = listenForNotifications({
      url: h.url,
      channel: PAYIN_CONTEXT_CHANNEL,
      retryMs: 20,
      verify: async (query) => {
        checks++;
        expect(await query("select 1 as one")).toEqual([{ one: 1 }]);
        throw new Error("the announcing triggers are missing");
      },
      onNotification: () => {},
      onListening: () => events.push("listening"),
      onLost: (error, first) => events.push(`lost${first ? " (first)" : ""}: ${error.message}`),
    });
    try {
      await waitFor(() => checks >= 3, "three checks");
      expect(await refused.sync()).toBe(false);
      expect(events[0]).toBe("lost (first): the announcing triggers are missing");
      expect(events.slice(1).every((e) => e === "lost: the announcing triggers are missing")).toBe(true);
    } finally {
      await refused.close();
    }
  });
});
