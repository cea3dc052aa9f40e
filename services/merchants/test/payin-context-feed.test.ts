import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { database } from "@payin/db";
import { merchantsV1 } from "@payin/proto";
import { Code, ConnectError, createServiceClient } from "@payin/rpc";
import { startTestServiceServer, testAssertions, waitFor, type TestServiceServer } from "@payin/testing";
import { CALLERS } from "../src/rpc/callers.js";
import { createMerchantsService, SERVICE_NAMES } from "../src/service.js";
import { PayinContextFeed } from "../src/store/payin-context-feed.js";
import { activeMerchant, startMerchants, type Harness } from "./harness.js";

// WatchPayinContextChanges and GetPayinContextFeedPosition on the service's
// real RPC server: the contract payins relies on (docs in merchants_service.proto).

type Event = merchantsV1.WatchPayinContextChangesResponse["event"];

let h: Harness;
let feed: PayinContextFeed;
let server: TestServiceServer;
let payins: ReturnType<typeof createServiceClient<typeof merchantsV1.MerchantsService>>;
let listening: Promise<void>;
const APPLICATION_NAME = "merchants test: payin context feed";


/** A stream's events as they arrive, and how it ended. */
function watch() {
  const controller = new AbortController();
  const events: Event[] = [];
  let ended: unknown;
  const done = (async () => {
    try {
      for await (const message of payins.watchPayinContextChanges({}, { signal: controller.signal, timeoutMs: 0 })) events.push(message.event);
      ended = "ended";
    } catch (error) {
      ended = error;
    }
  })();
  return { events, ended: () => ended, done, stop: () => controller.abort() };
}

beforeAll(async () => {
  h = await startMerchants();
  let ready!: () => void;
  listening = new Promise((resolve) => (ready = resolve));
  feed = new PayinContextFeed({ url: h.url, applicationName: APPLICATION_NAME, retryMs: 100, onListening: () => ready() });
  await listening;
  server = await startTestServiceServer({ name: "merchants", services: SERVICE_NAMES, routes: createMerchantsService({ db: database(h.orm), feed, assertionKey: testAssertions().verifyingKey }), allow: CALLERS });
  payins = createServiceClient(merchantsV1.MerchantsService, { baseUrl: server.url, serviceToken: server.credential("payins") });
});

afterAll(async () => {
  await feed?.close();
  await server?.close();
  await h?.close();
});

describe("the pay-in context feed", () => {
  it("starts each stream with `synced`, then sends every committed change once, numbered on from it, the position agreeing", async () => {
    const stream = watch();
    await waitFor(() => stream.events.length === 1, "synced");
    const synced = stream.events[0]!;
    expect(synced.case).toBe("synced");
    if (synced.case !== "synced") return;
    const position = await payins.getPayinContextFeedPosition({});
    expect(position).toMatchObject({ feedId: synced.value.feedId, sequence: synced.value.sequence });

    const uuid = await activeMerchant(h.client, "Fed");
    await h.client.createRule({ capability: "crypto.payin", jurisdiction: "FR", effect: "allow" });
    // The position covers both commits (three changes: created, activated, the rule)...
    const after = await payins.getPayinContextFeedPosition({});
    expect(after.feedId).toBe(synced.value.feedId);
    expect(after.sequence).toBe(synced.value.sequence + 3n);
    // ...and the stream delivers them, numbered on with no gap.
    await waitFor(() => stream.events.length === 4, "three changes");
    expect(stream.events.slice(1)).toEqual([1n, 2n, 3n].map((n, i) => ({
      case: "change",
      value: expect.objectContaining({ sequence: synced.value.sequence + n, merchantUuid: i < 2 ? uuid : "" }),
    })));
    stream.stop();
    await stream.done;
  });

  it("is open to payins, not to other callers", async () => {
    const allocation = createServiceClient(merchantsV1.MerchantsService, { baseUrl: server.url, serviceToken: server.credential("allocation") });
    const refused = await allocation.getPayinContextFeedPosition({}).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConnectError);
    expect((refused as ConnectError).code).toBe(Code.PermissionDenied);
  });

  it("ends its streams with UNAVAILABLE when it can no longer vouch for the changes, and starts a new feed once it can", async () => {
    const stream = watch();
    await waitFor(() => stream.events.length === 1, "synced");
    const before = stream.events[0]!.value as merchantsV1.PayinContextFeedSynced;
    const sql = new pg.Client({ connectionString: h.url });
    await sql.connect();
    try {
      const cut = await sql.query("select pg_terminate_backend(pid) as cut from pg_stat_activity where application_name = $1 and datname = current_database()", [APPLICATION_NAME]);
      expect(cut.rows).toEqual([{ cut: true }]);
    } finally {
      await sql.end();
    }
    await stream.done;
    expect(stream.ended()).toBeInstanceOf(ConnectError);
    expect((stream.ended() as ConnectError).code).toBe(Code.Unavailable);
    // Listening again: a new feed, which a new stream follows.
    let again: merchantsV1.GetPayinContextFeedPositionResponse | undefined;
    await waitFor(() => {
      void payins.getPayinContextFeedPosition({}).then((p) => (again = p), () => {});
      return again !== undefined;
    }, "the feed to be back");
    expect(again!.feedId).not.toBe(before.feedId);
    const next = watch();
    await waitFor(() => next.events.length === 1, "synced again");
    expect(next.events[0]).toEqual({ case: "synced", value: expect.objectContaining({ feedId: again!.feedId }) });
    next.stop();
    await next.done;
  });
});

it("answers UNAVAILABLE without a feed (an in-memory harness)", async () => {
  const failure = await h.client.getPayinContextFeedPosition({}).catch((e: unknown) => e);
  expect((failure as ConnectError).code).toBe(Code.Unavailable);
});
