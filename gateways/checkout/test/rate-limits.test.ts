/**
 * The checkout gateway's rate limits (RateLimits) on their own, without a
 * platform: counted in this process's memory, and in a real Redis (REDIS_URL;
 * in CI always set by .ci/run). Each test counts under a key prefix of its own,
 * so runs sharing a Redis never see each other's counters.
 */
import { randomUUID } from "node:crypto";
import net from "node:net";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimited, RateLimits, REDIS_CLIENT_OPTIONS, type PublicAction, type RateLimitSettings } from "../src/http/rate-limit.js";

const REDIS_URL = process.env.REDIS_URL;

/** Generous limits, so that a test meets only the one it is about. */
const ROOMY: Omit<RateLimitSettings, "keyPrefix"> = { publicPerIp: 1_000, publicPerToken: 1_000, checkoutCreate: 1_000, windowS: 60 };

/** What a count ended with: allowed, or refused with its Retry-After in seconds. */
type Outcome = "allowed" | { retryAfterS: number };

async function outcome(count: Promise<void>): Promise<Outcome> {
  try {
    await count;
    return "allowed";
  } catch (error) {
    if (!(error instanceof RateLimited)) throw error;
    // What the route answers: 429 RATE_LIMITED, Retry-After in whole seconds.
    expect({ status: error.status, code: error.code, retryAfter: error.headers["retry-after"] }).toEqual({
      status: 429,
      code: "RATE_LIMITED",
      retryAfter: String(error.retryAfterS),
    });
    return { retryAfterS: error.retryAfterS };
  }
}

/** `n` counts of one public request, one after the other. */
async function publicCounts(limits: RateLimits, n: number, action: PublicAction, ip: string, token: string): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let i = 0; i < n; i++) outcomes.push(await outcome(limits.public(action, ip, token)));
  return outcomes;
}

const allowed = (n: number): Outcome[] => Array.from({ length: n }, () => "allowed");
const refused = { retryAfterS: expect.any(Number) };

/**
 * The rules every store must keep. `client` gives the Redis client of a
 * RateLimits (a fresh one each call, as each replica has its own), or
 * undefined for memory.
 */
function rateLimitRules(client: () => Redis | undefined): void {
  const limitsWith = (settings: Partial<RateLimitSettings>, keyPrefix = `rl-test-${randomUUID()}`) =>
    new RateLimits({ ...ROOMY, keyPrefix, ...settings }, client());

  it("counts each action per client address: the limit's next request is refused, another address is not", async () => {
    const limits = limitsWith({ publicPerIp: 5 });
    // Every request names another token: only the address's count can refuse.
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 6; i++) outcomes.push(await outcome(limits.public("status", "198.51.100.7", `token-${i}`)));
    expect(outcomes).toEqual([...allowed(5), refused]);
    expect(await outcome(limits.public("status", "198.51.100.8", "token-x"))).toBe("allowed");
    expect(await outcome(limits.public("status", "198.51.100.7", "token-y"))).toEqual(refused);
  });

  it("counts each action per token: requests from many addresses share the token's limit, another token has its own", async () => {
    const limits = limitsWith({ publicPerToken: 4 });
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 5; i++) outcomes.push(await outcome(limits.public("page", `203.0.113.${i + 1}`, "digest-a")));
    expect(outcomes).toEqual([...allowed(4), refused]);
    expect(await outcome(limits.public("page", "203.0.113.99", "digest-b"))).toBe("allowed");
    expect(await outcome(limits.public("page", "203.0.113.99", "digest-a"))).toEqual(refused);
  });

  it("counts the actions apart: page, start and status each have the whole limit", async () => {
    const limits = limitsWith({ publicPerIp: 3, publicPerToken: 3 });
    expect(await publicCounts(limits, 4, "status", "192.0.2.1", "digest")).toEqual([...allowed(3), refused]);
    // The same address and token, spent on status, still have page and start.
    expect(await publicCounts(limits, 4, "page", "192.0.2.1", "digest")).toEqual([...allowed(3), refused]);
    expect(await publicCounts(limits, 4, "start", "192.0.2.1", "digest")).toEqual([...allowed(3), refused]);
  });

  it("counts one IPv4 client as one address however it is written (plain, ::ffff:-mapped, expanded)", async () => {
    const limits = limitsWith({ publicPerIp: 3 });
    const spellings = ["198.51.100.20", "::ffff:198.51.100.20", "0:0:0:0:0:ffff:c633:6414", "::FFFF:198.51.100.20"];
    const outcomes: Outcome[] = [];
    for (const [i, ip] of spellings.entries()) outcomes.push(await outcome(limits.public("status", ip, `token-${i}`)));
    expect(outcomes).toEqual([...allowed(3), refused]);
    expect(await outcome(limits.public("status", "198.51.100.21", "token-z"))).toBe("allowed");
  });

  it("counts IPv6 clients by their /64: twenty addresses of one /64 share one budget, the next /64 has its own", async () => {
    const limits = limitsWith({ publicPerIp: 5 });
    const outcomes: Outcome[] = [];
    for (let i = 1; i <= 20; i++) outcomes.push(await outcome(limits.public("page", `2001:db8:aa:1::${i.toString(16)}`, `token-${i}`)));
    expect(outcomes).toEqual([...allowed(5), ...Array.from({ length: 15 }, () => refused)]);
    // The same /64 written otherwise, with a zone id: the same budget.
    expect(await outcome(limits.public("page", "2001:0DB8:00AA:0001:ffff:ffff:ffff:ffff%eth0", "token-x"))).toEqual(refused);
    expect(await outcome(limits.public("page", "2001:db8:aa:2::1", "token-y"))).toBe("allowed");
  });

  it("counts IPv6 clients by the configured prefix", async () => {
    const limits = limitsWith({ publicPerIp: 2, ipv6Prefix: 48 });
    expect(await outcome(limits.public("page", "2001:db8:bb:1::1", "token-a"))).toBe("allowed");
    expect(await outcome(limits.public("page", "2001:db8:bb:ff::1", "token-b"))).toBe("allowed");
    expect(await outcome(limits.public("page", "2001:db8:bb:ffff::1", "token-c"))).toEqual(refused);
    expect(await outcome(limits.public("page", "2001:db8:bc::1", "token-d"))).toBe("allowed");
  });

  it("charges a link only for requests its address's limit let through: a blocked address cannot lock the link for others", async () => {
    const limits = limitsWith({ publicPerIp: 3, publicPerToken: 5 });
    for (const action of ["page", "start", "status"] as const) {
      // One address spends its whole limit and goes on asking: 100 refusals.
      expect(await publicCounts(limits, 103, action, "203.0.113.66", "digest-link")).toEqual([...allowed(3), ...Array.from({ length: 100 }, () => refused)]);
      // The payer, from elsewhere, still has what the link has left (5 - 3).
      expect(await publicCounts(limits, 3, action, "198.51.100.77", "digest-link")).toEqual([...allowed(2), refused]);
    }
  });

  it("counts invalid starts of a link apart from its real ones", async () => {
    const limits = limitsWith({ publicPerToken: 2 });
    for (let i = 0; i < 5; i++) await outcome(limits.perLink("start-invalid", "digest-s"));
    expect(await outcome(limits.perLink("start-invalid", "digest-s"))).toEqual(refused);
    expect(await outcome(limits.perLink("start", "digest-s"))).toBe("allowed");
  });

  it("counts checkout creations per identity, apart from the public routes", async () => {
    const limits = limitsWith({ checkoutCreate: 3, publicPerIp: 1, publicPerToken: 1 });
    const identity = randomUUID();
    const creations: Outcome[] = [];
    for (let i = 0; i < 4; i++) creations.push(await outcome(limits.checkoutCreation(identity)));
    expect(creations).toEqual([...allowed(3), refused]);
    expect(await outcome(limits.checkoutCreation(randomUUID()))).toBe("allowed");
    expect(await outcome(limits.public("page", "192.0.2.1", "digest"))).toBe("allowed");
  });

  it("answers a Retry-After of whole seconds within the window", async () => {
    const limits = limitsWith({ publicPerIp: 1, checkoutCreate: 1, windowS: 45 });
    await limits.public("start", "192.0.2.9", "digest");
    await limits.checkoutCreation("identity");
    for (const refusal of [await outcome(limits.public("start", "192.0.2.9", "digest")), await outcome(limits.checkoutCreation("identity"))]) {
      expect(refusal).toEqual(refused);
      const { retryAfterS } = refusal as { retryAfterS: number };
      expect(Number.isInteger(retryAfterS)).toBe(true);
      expect(retryAfterS).toBeGreaterThanOrEqual(1);
      expect(retryAfterS).toBeLessThanOrEqual(45);
    }
  });

  it("allows the whole limit again once the window has passed", { timeout: 15_000 }, async () => {
    const windowS = 1;
    const limits = limitsWith({ publicPerToken: 2, windowS });
    expect(await publicCounts(limits, 3, "status", "192.0.2.3", "digest")).toEqual([...allowed(2), refused]);
    const refusedAt = Date.now();
    // Wait for the reset by asking again and again (each refused ask counts,
    // and the window still ends when it began).
    let again: Outcome = await outcome(limits.public("status", "192.0.2.3", "digest"));
    while (again !== "allowed" && Date.now() - refusedAt < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await outcome(limits.public("status", "192.0.2.3", "digest"));
    }
    expect(again).toBe("allowed");
    // Within the window's length of the refusal (with room for a busy machine), not later.
    expect(Date.now() - refusedAt).toBeLessThan(windowS * 1_000 + 2_000);
    // A fresh window: the second of its two requests is allowed, the third refused.
    expect(await publicCounts(limits, 2, "status", "192.0.2.3", "digest")).toEqual(["allowed", refused]);
  });
}

describe("rate limits in memory (no REDIS_URL)", () => {
  rateLimitRules(() => undefined);

  it("are this process's own: two gateways without Redis each allow the whole limit", async () => {
    const keyPrefix = `rl-test-${randomUUID()}`;
    const replicas = [0, 1].map(() => new RateLimits({ ...ROOMY, keyPrefix, publicPerToken: 2 }));
    for (const replica of replicas) {
      expect(await publicCounts(replica, 3, "status", "192.0.2.1", "digest")).toEqual([...allowed(2), refused]);
    }
  });
});

// The first count of a fresh client may come before it is ready: wait, as a gateway serving for a while would be.
const ready = (client: Redis) =>
  client.status === "ready" ? Promise.resolve() : new Promise<void>((resolve) => client.once("ready", () => resolve()));

const redisClients: Redis[] = [];
afterAll(async () => {
  for (const client of redisClients) client.disconnect();
});

describe.skipIf(!REDIS_URL)(`rate limits in Redis (REDIS_URL${REDIS_URL ? "" : " unset: skipped; CI always sets it"})`, () => {
  /** A client as the gateway makes it (src/main.ts). */
  const connect = (url = REDIS_URL!) => {
    const client = new Redis(url, REDIS_CLIENT_OPTIONS);
    redisClients.push(client);
    return client;
  };

  // One client for the rules' tests (every test counts under a prefix of its own).
  let client: Redis;
  beforeAll(async () => {
    client = connect();
    await ready(client);
  });
  rateLimitRules(() => client);

  it("are shared: two gateways with one key prefix count together, and the next request on either is refused", async () => {
    const keyPrefix = `rl-test-${randomUUID()}`;
    const [a, b] = [connect(), connect()];
    await Promise.all([ready(a), ready(b)]);
    const replicas = [new RateLimits({ ...ROOMY, keyPrefix, publicPerToken: 6 }, a), new RateLimits({ ...ROOMY, keyPrefix, publicPerToken: 6 }, b)];
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 6; i++) outcomes.push(await outcome(replicas[i % 2]!.public("status", `192.0.2.${i}`, "digest")));
    expect(outcomes).toEqual(allowed(6));
    expect(await outcome(replicas[0]!.public("status", "192.0.2.50", "digest"))).toEqual(refused);
    expect(await outcome(replicas[1]!.public("status", "192.0.2.51", "digest"))).toEqual(refused);
    // The counters are Redis's, under the prefix, and end with the window.
    const keys = await a.keys(`${keyPrefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(await a.pttl(key)).toBeGreaterThan(0);
    await a.del(...keys);
  });

  it("count in memory when Redis stops answering without closing the connection: each count waits the command timeout at most", async () => {
    // A connection to the real Redis through a relay that goes silent on demand, as a stalled server or a lost network path does.
    let silent = false;
    const sockets: net.Socket[] = [];
    const relay = net.createServer((downstream) => {
      const { hostname, port } = new URL(REDIS_URL!);
      const upstream = net.connect(Number(port || 6379), hostname);
      downstream.on("data", (data) => silent || upstream.write(data));
      upstream.on("data", (data) => silent || downstream.write(data));
      for (const socket of [downstream, upstream]) socket.on("error", () => {});
      sockets.push(downstream, upstream);
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    try {
      const url = new URL(REDIS_URL!);
      url.host = `127.0.0.1:${(relay.address() as net.AddressInfo).port}`;
      const client = connect(url.toString());
      client.on("error", () => {});
      await ready(client);
      const limits = new RateLimits({ ...ROOMY, keyPrefix: `rl-test-${randomUUID()}`, publicPerToken: 3 }, client);
      expect(await outcome(limits.public("status", "192.0.2.1", "digest"))).toBe("allowed"); // counted in Redis
      silent = true;
      const started = Date.now();
      // Counted afresh in memory: three allowed, the fourth refused, none waiting longer than the timeout.
      for (const expected of [...allowed(3), refused]) {
        const asked = Date.now();
        expect(await outcome(limits.public("status", "192.0.2.1", "digest"))).toEqual(expected);
        expect(Date.now() - asked).toBeLessThan(REDIS_CLIENT_OPTIONS.commandTimeout + 1_000);
      }
      expect(Date.now() - started).toBeGreaterThanOrEqual(REDIS_CLIENT_OPTIONS.commandTimeout); // it did wait for Redis first
    } finally {
      relay.close();
      for (const socket of sockets) socket.destroy();
    }
  });
});

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("rate limits with Redis unreachable", () => {
  it("count in memory meanwhile, at once: no request waits on Redis, and the limits still hold", async () => {
    const client = new Redis(`redis://127.0.0.1:${await closedPort()}`, REDIS_CLIENT_OPTIONS);
    redisClients.push(client);
    client.on("error", () => {}); // connection refused, again and again: what the gateway logs as a warning
    const limits = new RateLimits({ ...ROOMY, keyPrefix: `rl-test-${randomUUID()}`, publicPerToken: 3, checkoutCreate: 2 });
    const unreachable = new RateLimits({ ...ROOMY, keyPrefix: `rl-test-${randomUUID()}`, publicPerToken: 3, checkoutCreate: 2 }, client);
    const started = Date.now();
    expect(await publicCounts(unreachable, 4, "status", "192.0.2.1", "digest")).toEqual([...allowed(3), refused]);
    const creations: Outcome[] = [];
    for (let i = 0; i < 3; i++) creations.push(await outcome(unreachable.checkoutCreation("identity")));
    expect(creations).toEqual([...allowed(2), refused]);
    // Seven counts with nothing listening: answered from memory, not after a connection timeout.
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(client.status).not.toBe("ready");
    // The same answers as a gateway without Redis gives.
    expect(await publicCounts(limits, 4, "status", "192.0.2.1", "digest")).toEqual([...allowed(3), refused]);
  });
});
