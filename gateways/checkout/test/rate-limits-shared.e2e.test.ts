/**
 * Several checkout gateway replicas share their rate limits through Redis: a
 * real platform whose checkout gateway counts in Redis (REDIS_URL, a key
 * prefix of this run's own), and a second checkout gateway process beside it
 * with the same settings. Without Redis each replica counts alone. The
 * gateways believe X-Forwarded-For from the loopback, so each request names
 * the client address it counts for. Skipped when REDIS_URL is not set (a
 * machine without Redis); CI always sets it.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { GATEWAYS, startProcess, stopProcess, type RunningProcess } from "@payin/launcher";
import { freePort } from "@payin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PageClient, readyMerchant, useCheckoutPlatform, type PageResponse } from "./support.js";

const REDIS_URL = process.env.REDIS_URL;
/** The default limit of every public action, per client address and per token. */
const LIMIT = 60;
const CHECKOUT = GATEWAYS.find((spec) => spec.name === "checkout")!;

describe.skipIf(!REDIS_URL)(`checkout gateway replicas and their rate limits (REDIS_URL${REDIS_URL ? "" : " unset: skipped; CI always sets it"})`, () => {
  const keyPrefix = `rl-e2e-${randomUUID()}`;
  const e2e = useCheckoutPlatform({ env: { REDIS_URL: REDIS_URL ?? "", RATE_LIMIT_KEY_PREFIX: keyPrefix, TRUSTED_PROXIES: "127.0.0.1" } });
  const extra: RunningProcess[] = [];
  let token: string;

  /** Another checkout gateway on the platform's services, with the platform's settings and `env` over them; its base URL. */
  async function startReplica(env: Record<string, string>): Promise<string> {
    const replica = await startProcess(CHECKOUT, {
      env: { ...e2e.platform.env, CHECKOUT_PORT: String(await freePort()), ...env },
      extraCallers: ["test"],
      output: e2e.platform.logFile,
    });
    extra.push(replica);
    return `http://127.0.0.1:${replica.port}`;
  }

  beforeAll(async () => {
    const merchant = await readyMerchant(e2e, "Shared Limits Shop");
    ({ token } = await e2e.payins.createCheckoutSession({
      merchantUuid: merchant.uuid,
      amount: "5",
      pairs: [{ asset: "usdt", rail: "bep20" }],
      jurisdiction: "DE",
      reference: `shared-${randomBytes(4).toString("hex")}`,
    }));
  }, 120_000);

  afterAll(async () => {
    await Promise.all(extra.map((replica) => stopProcess(replica)));
  }, 30_000);

  let addressCounter = 0;
  /** A client address no other request of this file uses. */
  const freshAddress = () => {
    addressCounter++;
    return `10.${(addressCounter >> 16) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
  };
  const statusOf = (gateway: string, checkoutToken: string, clientAddress: string) =>
    new PageClient(gateway, { "x-forwarded-for": clientAddress }).get(`/c/${checkoutToken}/status`);

  function expectRateLimited(res: PageResponse): void {
    expect(res.status, res.text).toBe(429);
    expect(res.json?.error?.code).toBe("RATE_LIMITED");
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${res.headers.get("retry-after")}`).toBe(true);
  }

  describe("counting in Redis", () => {
    let gateways: [string, string];
    beforeAll(async () => {
      gateways = [e2e.checkoutUrl, await startReplica({})];
    }, 120_000);

    it("share one token's limit: 60 status requests spread over both are answered, the 61st on either is refused", async () => {
      // Each from another client address: only the token's count can refuse.
      const answers: number[] = [];
      for (let i = 0; i < LIMIT; i++) answers.push((await statusOf(gateways[i % 2]!, token, freshAddress())).status);
      expect(answers).toEqual(Array.from({ length: LIMIT }, () => 200));
      for (const gateway of gateways) expectRateLimited(await statusOf(gateway, token, freshAddress()));
    });

    it("share one client address's limit: 60 status requests over both, each for another token, then the 61st on either is refused", async () => {
      const address = freshAddress();
      // Unknown tokens (404, counted before any service call): only the address's count can refuse.
      const unknownToken = () => randomBytes(32).toString("base64url");
      const answers: number[] = [];
      for (let i = 0; i < LIMIT; i++) answers.push((await statusOf(gateways[i % 2]!, unknownToken(), address)).status);
      expect(answers).toEqual(Array.from({ length: LIMIT }, () => 404));
      for (const gateway of gateways) expectRateLimited(await statusOf(gateway, unknownToken(), address));
      // Another address is not held back by it.
      expect((await statusOf(gateways[1], unknownToken(), freshAddress())).status).toBe(404);
    });

    it("keep the counters in Redis under the configured prefix, ending with the window", async () => {
      const redis = new Redis(REDIS_URL!, { maxRetriesPerRequest: 1 });
      try {
        const keys = await redis.keys(`${keyPrefix}:*`);
        expect(keys.length).toBeGreaterThan(0);
        // Keys hold the token's hash, never the token itself.
        for (const key of keys) expect(key).not.toContain(token);
        for (const key of keys) expect(await redis.pttl(key)).toBeGreaterThan(0);
      } finally {
        redis.disconnect();
      }
    });
  });

  describe("counting in memory (no REDIS_URL)", () => {
    let gateways: [string, string];
    beforeAll(async () => {
      gateways = [await startReplica({ REDIS_URL: "" }), await startReplica({ REDIS_URL: "" })];
    }, 120_000);

    // The token whose limit the Redis replicas used up: these count on their own.
    it("do not share: each replica allows the token its own 60 requests", async () => {
      for (const gateway of gateways) {
        const answers: number[] = [];
        for (let i = 0; i < LIMIT; i++) answers.push((await statusOf(gateway, token, freshAddress())).status);
        expect(answers).toEqual(Array.from({ length: LIMIT }, () => 200));
        expectRateLimited(await statusOf(gateway, token, freshAddress()));
      }
    });
  });
});
