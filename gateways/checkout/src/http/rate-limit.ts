import type { Redis, RedisOptions } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { ApiError } from "@payin/http";

/** The public actions, each counted on its own (docs/checkout.md, "Rate limits"). */
export type PublicAction = "page" | "start" | "status";

export interface RateLimitSettings {
  publicPerIp: number;
  publicPerToken: number;
  checkoutCreate: number;
  windowS: number;
  /** Prefix of the counters' keys (replicas sharing limits use the same one). */
  keyPrefix: string;
}

/**
 * The options the gateway's Redis client is made with, so that the limits count
 * in memory rather than wait when Redis fails: no queue while disconnected (a
 * count goes to memory at once), and a command unanswered after 500 ms (a Redis
 * that stalls without closing the connection) fails and is counted in memory.
 */
export const REDIS_CLIENT_OPTIONS = { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 500 } satisfies RedisOptions;

/** Thrown when a limit is reached: the route answers 429 RATE_LIMITED with Retry-After. */
export class RateLimited extends ApiError {
  constructor(readonly retryAfterS: number) {
    super("RATE_LIMITED", `too many requests; retry in ${retryAfterS} s`, { "retry-after": String(retryAfterS) });
  }
}

/**
 * The gateway's rate limits, on rate-limiter-flexible: fixed windows counted in
 * Redis when a client is given (every replica shares the counters), else in
 * this process's memory. Keys never hold a checkout token, only its hash.
 */
export class RateLimits {
  private readonly perIp: RateLimiterAbstract;
  private readonly perToken: RateLimiterAbstract;
  private readonly create: RateLimiterAbstract;

  constructor(settings: RateLimitSettings, redis?: Redis) {
    const make = (keyPrefix: string, points: number): RateLimiterAbstract =>
      redis
        ? new RateLimiterRedis({
            storeClient: redis,
            keyPrefix,
            points,
            duration: settings.windowS,
            // Redis unreachable: each replica counts in its own memory until it is back,
            // rather than waiting on it or letting every request through.
            rejectIfRedisNotReady: true,
            insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration: settings.windowS }),
          })
        : new RateLimiterMemory({ keyPrefix, points, duration: settings.windowS });
    this.perIp = make(`${settings.keyPrefix}:ip`, settings.publicPerIp);
    this.perToken = make(`${settings.keyPrefix}:token`, settings.publicPerToken);
    this.create = make(`${settings.keyPrefix}:create`, settings.checkoutCreate);
  }

  /** Counts a public request of `action` for the client address and the token (its hash); throws RateLimited past either limit. */
  async public(action: PublicAction, clientAddress: string, tokenDigest: string): Promise<void> {
    await Promise.all([consume(this.perIp, `${action}:${clientAddress}`), consume(this.perToken, `${action}:${tokenDigest}`)]);
  }

  /** Counts a checkout creation by the identity; throws RateLimited past the limit. */
  async checkoutCreation(identityUuid: string): Promise<void> {
    await consume(this.create, identityUuid);
  }
}

async function consume(limiter: RateLimiterAbstract, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) throw new RateLimited(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
    throw rejection;
  }
}
