import { DomainError } from "@payin/errors";
import { rateLimitKeyOf } from "@payin/http/rate-limit-key";
import { IdentityReason } from "./reasons.js";
import type { ThrottleLimit } from "./security-events.js";
import type { AttemptOutcome, FailureCount, LoginAttemptStore, Reservation } from "./stores.js";

/**
 * Sign-in throttling, counted in PostgreSQL so it holds across replicas. Every
 * attempt (a password, or an MFA code) is recorded and counted before it is
 * checked, and refused when one of these limits holds:
 * - email and client IP: after 5 failures for one email from one client IP
 *   within 15 minutes, until they age out (or that email signs in from that IP).
 *   Failures from one address never stop the owner signing in from another;
 * - account: consecutive failures of an email from anywhere (since its last
 *   completed sign-in, within 24 hours). The first 10 cost nothing; from then on
 *   each attempt must wait 1 s after the latest failure, then 2 s, 4 s, … at most
 *   15 minutes (NIST SP 800-63B §5.2.2 rate limiting, without a hard lock an
 *   attacker could trigger at will). At 100 the email refuses every attempt
 *   until failures age out of the 24 hours, or an operator forgives them;
 * - client IP: after 100 failed attempts from one client IP (whichever emails,
 *   even those a later sign-in or an operator forgave) within 15 minutes. Successful
 *   sign-ins do not count: many people behind one address (an office, a NAT)
 *   signing in correctly are never locked out; guessing across accounts is;
 * - MFA challenge: after 5 wrong codes the challenge is refused; a new one
 *   needs the password again. Wrong codes also count for the email and IP.
 * A refused attempt answers RESOURCE_EXHAUSTED (RATE_LIMITED) with the seconds
 * until an attempt can succeed, checks nothing, and is not itself counted.
 */
export const PAIR_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_PAIR = 5;
export const IP_WINDOW_MS = 15 * 60_000;
// High enough that ordinary traffic from one address (an office, a NAT, a test
// suite with its share of wrong passwords and parallel sign-ins) never trips it;
// a spray across accounts does, at about 7 guesses a minute.
export const MAX_FAILURES_PER_IP = 100;
export const ACCOUNT_WINDOW_MS = 24 * 60 * 60_000;
export const MAX_CONSECUTIVE_FAILURES = 100;
export const FREE_CONSECUTIVE_FAILURES = 10;
export const FIRST_DELAY_MS = 1_000;
export const MAX_DELAY_MS = 15 * 60_000;
export const MAX_CODE_FAILURES_PER_CHALLENGE = 5;

/** A refused attempt: the limit that refused it, and when an attempt can succeed. */
export interface Refusal {
  limit: ThrottleLimit;
  retryAfterSeconds: number;
}

/** A DomainError for a throttled attempt. */
export function rateLimited(retryAfterSeconds: number): DomainError<IdentityReason> {
  return new DomainError(IdentityReason.RateLimited, "too many sign-in attempts; try again later", retryAfterSeconds);
}

/**
 * How long after the latest failure an attempt must wait, with `consecutive`
 * failures before it: nothing for the first ones, then doubling from 1 s, capped.
 */
export function accountDelayMs(consecutive: number): number {
  if (consecutive < FREE_CONSECUTIVE_FAILURES) return 0;
  const doublings = consecutive - FREE_CONSECUTIVE_FAILURES;
  // 2^30 s is far past the cap; the exponent stays small.
  return Math.min(FIRST_DELAY_MS * 2 ** Math.min(doublings, 30), MAX_DELAY_MS);
}

/**
 * Whether an attempt that sees `reserved` at `now` is refused, and until when.
 * With several limits holding, the latest time wins: only then can it succeed.
 */
export function refusalOf(reserved: Reservation, now: Date): Refusal | null {
  const t = now.getTime();
  const waits: { limit: ThrottleLimit; until: number }[] = [];
  const ageOut = (count: FailureCount, limit: number, windowMs: number) =>
    count.count >= limit && count.nthLatestAt ? count.nthLatestAt.getTime() + windowMs : t;
  if (reserved.pair.count >= MAX_FAILURES_PER_PAIR) {
    waits.push({ limit: "email_client_ip", until: ageOut(reserved.pair, MAX_FAILURES_PER_PAIR, PAIR_WINDOW_MS) });
  }
  if (reserved.ip.count >= MAX_FAILURES_PER_IP) {
    waits.push({ limit: "client_ip", until: ageOut(reserved.ip, MAX_FAILURES_PER_IP, IP_WINDOW_MS) });
  }
  const { account } = reserved;
  const latest = account.latestAt?.getTime() ?? t;
  if (account.count >= MAX_CONSECUTIVE_FAILURES) {
    // Once enough age out, the delay after the latest failure still applies.
    const until = Math.max(ageOut(account, MAX_CONSECUTIVE_FAILURES, ACCOUNT_WINDOW_MS), latest + MAX_DELAY_MS);
    waits.push({ limit: "account_cap", until });
  } else {
    const delay = accountDelayMs(account.count);
    if (delay > 0 && latest + delay > t) waits.push({ limit: "account_delay", until: latest + delay });
  }
  // A spent challenge never succeeds: the caller signs in again, at once if nothing else holds.
  if (reserved.challengeFailures >= MAX_CODE_FAILURES_PER_CHALLENGE) waits.push({ limit: "mfa_challenge", until: t });
  if (waits.length === 0) return null;
  const last = waits.reduce((a, b) => (b.until > a.until ? b : a));
  return { limit: last.limit, retryAfterSeconds: Math.max(1, Math.ceil((last.until - t) / 1000)) };
}

/**
 * The client address an attempt is counted under, so that one client's
 * spellings of its address, and the addresses of one IPv6 network, share one
 * budget: IPv4 (and IPv4-mapped IPv6) by the IPv4, other IPv6 by its
 * `ipv6Prefix` network (rateLimitKeyOf of @payin/http). What is no address is
 * counted as given (an empty one, too: callers that omit it share one bucket).
 */
export function countedClientIp(clientIp: string, ipv6Prefix?: number): string {
  return rateLimitKeyOf(clientIp, ipv6Prefix) ?? clientIp;
}

/** What an attempt is counted under. */
export interface AttemptKey {
  email: string;
  clientIp: string | null;
  /** The MFA challenge a code is for; absent for a password. */
  challengeUuid?: string | null;
}

/**
 * Runs `check` (a password or MFA code check) as one counted attempt: refused with
 * RATE_LIMITED when a limit holds (after `onRefused` heard why); recorded as
 * failed when `check` answers null or throws, otherwise as `outcomeOf` says (a
 * completed sign-in, `succeeded`, starts the consecutive count again; by default
 * a right password is only `verified`, as when a signed-in person confirms it).
 * Answers what `check` answered.
 */
export async function throttledAttempt<T>(
  attempts: LoginAttemptStore,
  key: AttemptKey,
  now: Date,
  check: () => Promise<T | null>,
  outcomeOf: (result: T) => "succeeded" | "verified" = () => "verified",
  onRefused: (refusal: Refusal) => Promise<void> | void = () => {},
): Promise<T | null> {
  const reserved = await attempts.reserve({
    email: key.email,
    clientIp: key.clientIp,
    challengeUuid: key.challengeUuid ?? null,
    at: now,
    pairSince: new Date(now.getTime() - PAIR_WINDOW_MS),
    accountSince: new Date(now.getTime() - ACCOUNT_WINDOW_MS),
    ipSince: new Date(now.getTime() - IP_WINDOW_MS),
    limits: { pair: MAX_FAILURES_PER_PAIR, account: MAX_CONSECUTIVE_FAILURES, ip: MAX_FAILURES_PER_IP },
  });
  const refusal = refusalOf(reserved, now);
  if (refusal) {
    await attempts.settle(reserved.attemptId, "throttled");
    await onRefused(refusal);
    throw rateLimited(refusal.retryAfterSeconds);
  }
  let outcome: AttemptOutcome = "failed";
  try {
    const result = await check();
    if (result !== null) outcome = outcomeOf(result);
    return result;
  } finally {
    await attempts.settle(reserved.attemptId, outcome);
  }
}
