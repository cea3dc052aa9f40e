import type { Redis, RedisOptions } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { ApiError, DEFAULT_IPV6_RATE_LIMIT_PREFIX, rateLimitKeyOf } from "@payin/http";

/** The public actions, each counted on its own (docs/checkout.md, "Rate limits"). */
export type PublicAction = "page" | "start" | "status";

/**
 * What a link's per-token count is charged for: an action, or a start whose
 * form was invalid (counted apart, so that invalid starts never spend the
 * budget of the real ones).
 */
export type TokenCount = PublicAction | "start-invalid";

export interface RateLimitSettings {
  publicPerIp: number;
  publicPerToken: number;
  checkoutCreate: number;
  windowS: number;
  /** IPv6 clients are counted by this prefix (default 64); IPv4 and IPv4-mapped IPv6 by their IPv4. */
  ipv6Prefix?: number;
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
  private readonly ipv6Prefix: number;

  constructor(settings: RateLimitSettings, redis?: Redis) {
    this.ipv6Prefix = settings.ipv6Prefix ?? DEFAULT_IPV6_RATE_LIMIT_PREFIX;
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

  /**
   * Counts a public request of `action` for the client address, then, only if
   * the address was within its limit, for the token (its hash); throws
   * RateLimited past either limit. A request the address's limit refused spends
   * nothing of the link's: one blocked address cannot lock a link for others.
   */
  async public(action: PublicAction, clientAddress: string, tokenDigest: string): Promise<void> {
    await this.perAddress(action, clientAddress);
    await this.perLink(action, tokenDigest);
  }

  /** Counts a public request of `action` for the client address (see rateLimitKeyOf); throws RateLimited past the limit. */
  async perAddress(action: PublicAction, clientAddress: string): Promise<void> {
    // What is no address (no peer) is counted as given, in a bucket of its own.
    const key = rateLimitKeyOf(clientAddress, this.ipv6Prefix) ?? `raw:${clientAddress}`;
    await consume(this.perIp, `${action}:${key}`);
  }

  /** Counts a request for the token (its hash) under `count`; throws RateLimited past the limit. */
  async perLink(count: TokenCount, tokenDigest: string): Promise<void> {
    await consume(this.perToken, `${count}:${tokenDigest}`);
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
