import { createHash, randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import pg from "pg";
import { deriveCredential } from "@payin/config";
import { database, migrate, openOrm, type MikroORM } from "@payin/db";
import { DomainError } from "@payin/errors";
import { uuidv7 } from "@payin/ids";
import { payableTermsOf, railsFromEnv } from "@payin/rails";
import { SERVICES, startProcess, stopProcess, type RunningProcess } from "@payin/launcher";
import { merchantsV1 } from "@payin/proto";
import { createServiceClient } from "@payin/rpc";
import { createTestDatabase, freePort, waitFor } from "@payin/testing";
import { createPayInIntent, type AddressAllocator, type MerchantDirectory } from "../src/domain/create-pay-in-intent.js";
import { PayinContextCache } from "../src/domain/payin-context-cache.js";
import { PayinsReason } from "../src/domain/reasons.js";
import { merchantDirectory } from "../src/clients/merchants.js";
import { followPayinContextFeed, type FeedFollower } from "../src/clients/payin-context-feed.js";
import { ormOptions } from "../src/store/orm.js";
import { PayInRepository } from "../src/store/pay-in-repository.js";

// payins keeps merchants' answers while it follows merchants' feed of their
// changes (WatchPayinContextChanges): the real merchants service, as its own
// process on a database of its own, and payins' create on another database.
// payins relies on the RPC contract alone.

const { MerchantsService, MerchantTransition } = merchantsV1;
const TTL_MS = 60_000;
const FEED_APPLICATION_NAME = "merchants: payin context feed";

let merchantsProcess: RunningProcess;
/** How merchants was started, to start it again. */
let merchantsOptions: Parameters<typeof startProcess>[1];
const merchantsSpec = SERVICES.find((s) => s.name === "merchants")!;
let merchantsDb: string;
let payinsDb: string;
let operator: ReturnType<typeof createServiceClient<typeof MerchantsService>>;
let orm: MikroORM;
let repo: PayInRepository;
let feed: FeedFollower;
let cache: PayinContextCache;
const events: string[] = [];
let lookups = 0;
/** GetPayinContextFeedPosition calls the feed made. */
let positionCalls = 0;


/** This file waits on a second process and a stream: twice the default patience. */
const waitForLong = (condition: () => boolean, what: string) => waitFor(condition, what, 10_000);

const allocator: AddressAllocator = {
  allocate: async (merchant, intentUuid) => ({
    address: `0x${createHash("sha256").update(`${merchant}/${intentUuid}`).digest("hex").slice(0, 40)}`,
    reference: "m/44'/60'/0'/0/1",
  }),
};

/** One create through the cache: "created", or the reason it was refused. */
async function create(merchantUuid: string): Promise<string> {
  try {
    await createPayInIntent(
      { store: repo, merchants: cache, allocator, rails: payableTermsOf(railsFromEnv({})), newUuid: uuidv7, now: () => new Date() },
      { merchantUuid, idempotencyKey: `k-${uuidv7()}`, asset: "usdt", amount: "10", jurisdiction: "DE", expiresAt: new Date(Date.now() + 3_600_000), reference: undefined },
    );
    return "created";
  } catch (error) {
    if (error instanceof DomainError) return error.reason;
    throw error;
  }
}

/** Runs SQL on a database (merchants': as an operator would). */
async function onDb<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  merchantsDb = await createTestDatabase("feed_merchants");
  payinsDb = await createTestDatabase("feed_payins");
  const master = randomBytes(32).toString("base64url");
  const port = await freePort();
  merchantsOptions = {
    env: { DATABASE_URL: merchantsDb, MERCHANTS_PORT: String(port), SERVICE_TOKEN: master, LOG_LEVEL: "info", PROCESS_NICE: "0", WORKER_SCHED_IDLE: "false" },
    output: path.join(inject("testLogDir"), `payin-context-feed-${randomBytes(4).toString("hex")}.log`),
    extraCallers: ["test"],
  };
  merchantsProcess = await startProcess(merchantsSpec, merchantsOptions);
  const baseUrl = `http://127.0.0.1:${port}`;
  operator = createServiceClient(MerchantsService, { baseUrl, serviceToken: deriveCredential(master, "test") });
  // payins' own client, with payins' credential: what merchants' allowlist lets payins call.
  const merchants = createServiceClient(MerchantsService, { baseUrl, serviceToken: deriveCredential(master, "payins") });
  await migrate(ormOptions(payinsDb));
  orm = await openOrm(ormOptions(payinsDb, 4));
  repo = new PayInRepository(database(orm));
  const source = merchantDirectory(merchants);
  const counting: MerchantDirectory = {
    payinContext: (merchantUuid, jurisdiction) => {
      lookups++;
      return source.payinContext(merchantUuid, jurisdiction);
    },
  };
  cache = new PayinContextCache(counting, {
    ttlMs: TTL_MS,
    maxEntries: 1_000,
    catchUp: () => feed.catchUp(),
    onServedKept: (error) => events.push(`served kept: ${(error as Error).name}`),
  });
  feed = followPayinContextFeed({
    merchants: {
      watchPayinContextChanges: (...args) => merchants.watchPayinContextChanges(...args),
      getPayinContextFeedPosition: (...args) => {
        positionCalls++;
        return merchants.getPayinContextFeedPosition(...args);
      },
    },
    target: cache,
    retryMs: 100,
    onFollowing: () => events.push("following"),
    onLost: () => events.push("lost"),
  });
  await waitForLong(() => events.includes("following"), "payins to follow the feed");
  await operator.createRule({ capability: "crypto.payin", jurisdiction: "DE", effect: "allow" });
});

afterAll(async () => {
  await feed?.close();
  await orm?.close();
  if (merchantsProcess) await stopProcess(merchantsProcess);
});

/** An active merchant with everything a create needs. */
async function readyMerchant(): Promise<string> {
  const { merchant } = await operator.createMerchant({ displayName: "Feed" });
  const uuid = merchant!.uuid;
  await operator.transitionMerchant({ uuid, transition: MerchantTransition.ACTIVATE });
  await operator.createPolicy({ merchantUuid: uuid, scope: "payin", effect: "allow" });
  await operator.ensureOperatingProfile({ merchantUuid: uuid, operatingMode: "non_custodial" });
  await connectProvider(uuid);
  // Its announcements have arrived: an answer fetched now is kept (one fetched
  // while one arrives is used but not kept).
  expect(await feed.catchUp()).toBe(true);
  return uuid;
}

/** The provider merchants seeds (evm-rpc). */
const EVM_RPC_PROVIDER_UUID = "01a2008d-7400-7000-8000-000000000001";

/** Binds the seeded provider to a merchant for crypto.payin and connects the merchant to it. */
async function connectProvider(merchantUuid: string): Promise<void> {
  await operator.ensureProviderBinding({ merchantUuid, providerUuid: EVM_RPC_PROVIDER_UUID, capability: "crypto.payin", jurisdiction: "DE" });
  await operator.ensureProviderConnection({ merchantUuid, providerUuid: EVM_RPC_PROVIDER_UUID });
}

describe("payins following merchants' pay-in context feed, on two databases", () => {
  it("runs merchants and payins on different databases: payins' has no merchants schema", async () => {
    expect(new URL(merchantsDb).pathname).not.toBe(new URL(payinsDb).pathname);
    const { rows } = await onDb(payinsDb, (c) => c.query("select nspname from pg_namespace where nspname in ('merchants', 'payins')"));
    expect(rows.map((row) => row.nspname)).toEqual(["payins"]);
  });

  it("keeps answers, and applies a change to status, policy, profile or rule from the very next create", async () => {
    const uuid = await readyMerchant();
    expect(await create(uuid)).toBe("created");
    const before = lookups;
    expect(await create(uuid)).toBe("created");
    expect(lookups).toBe(before);

    const steps: [string, () => Promise<unknown>, string][] = [
      ["suspend", () => operator.transitionMerchant({ uuid, transition: MerchantTransition.SUSPEND }), PayinsReason.MerchantNotActive],
      ["activate", () => operator.transitionMerchant({ uuid, transition: MerchantTransition.ACTIVATE }), "created"],
      ["policy deny", () => operator.createPolicy({ merchantUuid: uuid, scope: "payin", effect: "deny" }), PayinsReason.PayinNotAllowed],
      ["policy allow", () => operator.createPolicy({ merchantUuid: uuid, scope: "payin", effect: "allow" }), "created"],
      ["rule deny", () => operator.createRule({ capability: "crypto.payin", jurisdiction: "DE", effect: "deny" }), PayinsReason.PayinNotAllowed],
      ["rule allow", () => operator.createRule({ capability: "crypto.payin", jurisdiction: "DE", effect: "allow" }), "created"],
      // Outside the service: an operator's SQL is announced too.
      ["SQL suspend", () => onDb(merchantsDb, (c) => c.query("update merchants.merchants set status = 'suspended' where uuid = $1", [uuid])), PayinsReason.MerchantNotActive],
      ["SQL activate", () => onDb(merchantsDb, (c) => c.query("update merchants.merchants set status = 'active' where uuid = $1", [uuid])), "created"],
    ];
    for (const [what, change, outcome] of steps) {
      // Kept and used before the change...
      await create(uuid);
      const kept = lookups;
      await create(uuid);
      expect(lookups, `${what}: answered from memory before the change`).toBe(kept);
      // ...and never after it: the very next create sees it.
      await change();
      expect(await create(uuid), what).toBe(outcome);
    }
  });

  it("applies a new operating profile from the next create", async () => {
    const { merchant } = await operator.createMerchant({ displayName: "No profile yet" });
    const uuid = merchant!.uuid;
    await operator.transitionMerchant({ uuid, transition: MerchantTransition.ACTIVATE });
    await operator.createPolicy({ merchantUuid: uuid, scope: "payin", effect: "allow" });
    await connectProvider(uuid);
    expect(await feed.catchUp()).toBe(true);
    expect(await create(uuid)).toBe(PayinsReason.OperatingProfileMissing);
    const kept = lookups;
    expect(await create(uuid)).toBe(PayinsReason.OperatingProfileMissing);
    expect(lookups).toBe(kept);
    await operator.ensureOperatingProfile({ merchantUuid: uuid, operatingMode: "hybrid" });
    expect(await create(uuid)).toBe("created");
  });

  it("applies a provider binding (of the create's jurisdiction) and connection from the next create, and their removal too", async () => {
    const { merchant } = await operator.createMerchant({ displayName: "No provider yet" });
    const uuid = merchant!.uuid;
    await operator.transitionMerchant({ uuid, transition: MerchantTransition.ACTIVATE });
    await operator.createPolicy({ merchantUuid: uuid, scope: "payin", effect: "allow" });
    await operator.ensureOperatingProfile({ merchantUuid: uuid, operatingMode: "hybrid" });
    await operator.ensureProviderBinding({ merchantUuid: uuid, providerUuid: EVM_RPC_PROVIDER_UUID, capability: "crypto.payin", jurisdiction: "FR" });
    expect(await feed.catchUp()).toBe(true);
    // A binding alone is not enough (as readiness says: provider_not_ready).
    expect(await create(uuid)).toBe(PayinsReason.PayinNotReady);
    const kept = lookups;
    expect(await create(uuid)).toBe(PayinsReason.PayinNotReady);
    expect(lookups).toBe(kept);
    await operator.ensureProviderConnection({ merchantUuid: uuid, providerUuid: EVM_RPC_PROVIDER_UUID });
    // Connected, but the provider is bound for FR: it does not serve this merchant's pay-ins in DE.
    expect(await create(uuid)).toBe(PayinsReason.PayinNotReady);
    await operator.ensureProviderBinding({ merchantUuid: uuid, providerUuid: EVM_RPC_PROVIDER_UUID, capability: "crypto.payin", jurisdiction: "DE" });
    expect(await create(uuid)).toBe("created");
    // An operator's SQL removing the connection is announced too.
    await create(uuid);
    await onDb(merchantsDb, (c) => c.query("delete from merchants.provider_connections where merchant_uuid = $1", [uuid]));
    expect(await create(uuid)).toBe(PayinsReason.PayinNotReady);
  });

  it("catches up once per batch: the creates of one turn share one position call, those meanwhile the next", async () => {
    const uuid = await readyMerchant();
    await create(uuid);
    const kept = lookups;
    const before = positionCalls;
    expect(await Promise.all([feed.catchUp(), feed.catchUp(), feed.catchUp()])).toEqual([true, true, true]);
    expect(positionCalls - before).toBe(1);
    // 50 creates reach the cache over several turns: one call, then at most one more for those that came meanwhile.
    const beforeCreates = positionCalls;
    expect(await Promise.all(Array.from({ length: 50 }, () => create(uuid)))).toEqual(Array(50).fill("created"));
    expect(positionCalls - beforeCreates).toBeGreaterThanOrEqual(1);
    expect(positionCalls - beforeCreates).toBeLessThanOrEqual(2);
    expect(lookups).toBe(kept);
  });

  it("while the feed is down, keeps no answer (at most the cache's lifetime, here none at all), then follows again", async () => {
    const uuid = await readyMerchant();
    await create(uuid);
    events.length = 0;
    // Cut the feed where it starts: merchants' own listening session on its database.
    const cut = await onDb(merchantsDb, (c) =>
      c.query("select pg_terminate_backend(pid) as cut from pg_stat_activity where application_name = $1 and datname = current_database()", [FEED_APPLICATION_NAME]),
    );
    expect(cut.rows).toEqual([{ cut: true }]);
    await waitForLong(() => events.includes("lost"), "payins to notice the feed is down");
    expect(await feed.catchUp()).toBe(false);
    // Down: every create asks merchants, so a change is seen at once, never later than the lifetime.
    const during = lookups;
    await operator.transitionMerchant({ uuid, transition: MerchantTransition.SUSPEND });
    expect(await create(uuid)).toBe(PayinsReason.MerchantNotActive);
    await operator.transitionMerchant({ uuid, transition: MerchantTransition.ACTIVATE });
    expect(await create(uuid)).toBe("created");
    expect(lookups - during).toBeGreaterThanOrEqual(2);
    // Back: answers are kept again, and changes apply from the next create.
    await waitForLong(() => events.includes("following"), "payins to follow the feed again");
    expect(await feed.catchUp()).toBe(true);
    await create(uuid);
    const kept = lookups;
    expect(await create(uuid)).toBe("created");
    expect(lookups).toBe(kept);
    await operator.transitionMerchant({ uuid, transition: MerchantTransition.SUSPEND });
    expect(await create(uuid)).toBe(PayinsReason.MerchantNotActive);
  });

  it("while merchants is stopped, answers from what it kept until it expires, and follows again once merchants is back", async () => {
    const uuid = await readyMerchant();
    const never = await readyMerchant();
    await create(uuid);
    events.length = 0;
    await stopProcess(merchantsProcess);
    await waitForLong(() => events.includes("lost"), "payins to notice merchants is gone");
    expect(await feed.catchUp()).toBe(false);
    // merchants unreachable: a kept answer serves (at most TTL_MS old); nothing kept, nothing to serve.
    expect(await create(uuid)).toBe("created");
    // ... and says so (payins logs it with the cause).
    expect(events.filter((e) => e.startsWith("served kept"))).toEqual(["served kept: ConnectError"]);
    await expect(create(never)).rejects.toThrow();
    merchantsProcess = await startProcess(merchantsSpec, merchantsOptions);
    await waitForLong(() => events.includes("following"), "payins to follow the feed again");
    expect(await create(uuid)).toBe("created");
  });
});
