import { DomainError } from "@payin/errors";
import { IdentityReason } from "./reasons.js";
import type { AttemptOutcome, LoginAttemptStore } from "./stores.js";

/**
 * Sign-in throttling, counted in PostgreSQL so it holds across replicas. Within any
 * 15-minute window:
 * - after 5 failed attempts for one email (password or MFA code), the next attempt
 *   for that email is refused until the failures age out of the window; a
 *   successful sign-in forgives the earlier failures;
 * - after 100 failed attempts from one client IP (whichever emails, a failure the
 *   email's later success forgave included), the next one is refused. Successful
 *   sign-ins do not count: many people behind one address (an office, a NAT)
 *   signing in correctly are never locked out; guessing across accounts is.
 * A refused attempt answers RESOURCE_EXHAUSTED (RATE_LIMITED), checks no password,
 * and is not itself counted.
 */
export const THROTTLE_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_EMAIL = 5;
// High enough that ordinary traffic from one address (an office, a NAT, a test
// suite with its share of wrong passwords and parallel sign-ins) never trips it;
// a spray across accounts does, at about 7 guesses a minute.
export const MAX_FAILURES_PER_IP = 100;

/** A DomainError for a throttled attempt. */
export function rateLimited(): DomainError<IdentityReason> {
  return new DomainError(IdentityReason.RateLimited, "too many sign-in attempts; try again later");
}

/** The start of the throttling window that ends at `now`. */
export function windowStart(now: Date): Date {
  return new Date(now.getTime() - THROTTLE_WINDOW_MS);
}

/**
 * Runs `check` (a password or MFA code check) as one counted attempt: refused with
 * RATE_LIMITED when over a limit; recorded as failed when `check` answers null or
 * throws, as succeeded otherwise. A success for which `forgivesFailures` answers
 * true (a completed sign-in) also forgives the email's earlier failures. Answers
 * what `check` answered.
 */
export async function throttledAttempt<T>(
  attempts: LoginAttemptStore,
  key: { email: string; clientIp: string | null },
  now: Date,
  check: () => Promise<T | null>,
  forgivesFailures: (result: T) => boolean = () => false,
): Promise<T | null> {
  const reserved = await attempts.reserve({ ...key, at: now, since: windowStart(now) });
  if (reserved.emailFailures > MAX_FAILURES_PER_EMAIL || reserved.ipFailures > MAX_FAILURES_PER_IP) {
    await attempts.settle(reserved.attemptId, "throttled");
    throw rateLimited();
  }
  let outcome: AttemptOutcome = "failed";
  let forgive: { email: string; since: Date } | undefined;
  try {
    const result = await check();
    if (result !== null) {
      outcome = "succeeded";
      if (forgivesFailures(result)) forgive = { email: key.email, since: windowStart(now) };
    }
    return result;
  } finally {
    await attempts.settle(reserved.attemptId, outcome, forgive);
  }
}
