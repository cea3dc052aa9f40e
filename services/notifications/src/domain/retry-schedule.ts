/**
 * When a webhook delivery is tried again, and when it is given up: the
 * outcome of one attempt, decided without I/O.
 */

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The delivery schedule of one round, as delays from the previous attempt:
 * the first attempt at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h
 * later. Eight attempts in all; after the eighth failure the delivery is
 * given up (a resend starts a new round).
 */
export const DELIVERY_SCHEDULE_MS: readonly number[] = Object.freeze([0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);

/** A scheduled delay is stretched or shrunk by up to this fraction, at random, so retries of many deliveries spread out. */
export const JITTER_FRACTION = 0.1;

/**
 * The longest wait a receiver's Retry-After is honoured for; a longer one
 * waits this long. A Retry-After never brings an attempt forward: the next
 * attempt is at the later of the schedule's next step and the Retry-After.
 */
export const RETRY_AFTER_CAP_MS = DAY;

/** An endpoint whose deliveries have failed without a success in between for this long is disabled. */
export const FAILING_DISABLE_AFTER_MS = 5 * DAY;

export type AttemptDecision =
  | { kind: "succeeded" }
  | { kind: "retry"; at: Date }
  | { kind: "give_up" }
  | { kind: "disable"; reason: "gone" | "failing" };

/** A response's headers, names in lower case (as node:http gives them). */
export type ResponseHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

export interface AttemptOutcome {
  /** The response's status, or undefined when there was none (refused, timed out, connection failed). */
  statusCode?: number;
  /** Why there was no response (informational: any error is a failure). */
  error?: string;
  headers?: ResponseHeaders;
  /** Attempts of this round so far, the one being decided included (1 for the first). */
  roundAttempts: number;
  /** When the attempt ended. */
  now: Date;
  /** Since when the endpoint's deliveries have been failing (its first failure since its last success), if they are. */
  failingSince: Date | null;
  /** Uniform in [0, 1): the jitter. */
  random: () => number;
}

/** Whether the status is a success: 2xx only (a redirect is a failure: it is never followed). */
export function isSuccess(statusCode: number | undefined): boolean {
  return (statusCode ?? 0) >= 200 && (statusCode ?? 0) <= 299;
}

/**
 * The wait a Retry-After header asks for, in milliseconds from `now`: whole
 * seconds ("120") or an HTTP date; a date in the past is 0. Undefined when the
 * header is absent or neither form.
 */
export function retryAfterMs(value: string | readonly string[] | undefined, now: Date): number | undefined {
  const text = (typeof value === "string" ? value : (value?.[0] ?? "")).trim();
  if (/^\d+$/.test(text)) return Number(text) * SECOND;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}

/**
 * Decides what follows one attempt of a delivery:
 * - a 2xx answer: succeeded;
 * - 410 Gone: the endpoint is disabled ("gone");
 * - any other answer or no answer, when the endpoint has been failing for
 *   FAILING_DISABLE_AFTER_MS or longer: the endpoint is disabled ("failing");
 * - after the round's last attempt: given up;
 * - else a retry after the schedule's next delay (with jitter), or later when
 *   a 429 or 503 carries a Retry-After (capped at RETRY_AFTER_CAP_MS).
 */
export function decideAttempt(outcome: AttemptOutcome): AttemptDecision {
  if (isSuccess(outcome.statusCode)) return { kind: "succeeded" };
  if (outcome.statusCode === 410) return { kind: "disable", reason: "gone" };
  const now = outcome.now.getTime();
  if (outcome.failingSince !== null && now - outcome.failingSince.getTime() >= FAILING_DISABLE_AFTER_MS) return { kind: "disable", reason: "failing" };
  const step = DELIVERY_SCHEDULE_MS[Math.max(1, outcome.roundAttempts)];
  if (step === undefined) return { kind: "give_up" };
  let delay = Math.round(step * (1 + JITTER_FRACTION * (2 * outcome.random() - 1)));
  if (outcome.statusCode === 429 || outcome.statusCode === 503) {
    const asked = retryAfterMs(outcome.headers?.["retry-after"], outcome.now);
    if (asked !== undefined) delay = Math.max(delay, Math.min(asked, RETRY_AFTER_CAP_MS));
  }
  return { kind: "retry", at: new Date(now + delay) };
}
