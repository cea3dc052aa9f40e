import { describe, expect, it } from "vitest";
import {
  decideAttempt,
  DELIVERY_SCHEDULE_MS,
  FAILING_DISABLE_AFTER_MS,
  isSuccess,
  JITTER_FRACTION,
  RETRY_AFTER_CAP_MS,
  retryAfterMs,
  type AttemptOutcome,
} from "./retry-schedule.js";

const NOW = new Date("2026-11-27T12:00:00.000Z");
const S = 1_000;
const H = 3_600_000;
/** random() = 0.5 is no jitter at all. */
const middle = () => 0.5;

function decide(overrides: Partial<AttemptOutcome>) {
  return decideAttempt({ statusCode: 500, roundAttempts: 1, now: NOW, failingSince: null, random: middle, ...overrides });
}

function delayOf(overrides: Partial<AttemptOutcome>): number {
  const decision = decide(overrides);
  if (decision.kind !== "retry") throw new Error(`expected a retry, got ${decision.kind}`);
  return decision.at.getTime() - NOW.getTime();
}

describe("the schedule", () => {
  it("is immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h", () => {
    expect(DELIVERY_SCHEDULE_MS).toEqual([0, 5 * S, 300 * S, 1_800 * S, 2 * H, 5 * H, 10 * H, 10 * H]);
    expect(Object.isFrozen(DELIVERY_SCHEDULE_MS)).toBe(true);
  });

  it("retries after each step's delay, without jitter at random() = 0.5", () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((roundAttempts) => delayOf({ roundAttempts }));
    expect(delays).toEqual(DELIVERY_SCHEDULE_MS.slice(1));
  });

  it("gives up after the eighth attempt of a round", () => {
    expect(decide({ roundAttempts: 8 })).toEqual({ kind: "give_up" });
    expect(decide({ roundAttempts: 9 })).toEqual({ kind: "give_up" });
    expect(decide({ roundAttempts: 8, statusCode: undefined, error: "timeout" })).toEqual({ kind: "give_up" });
  });

  it("takes a round count of 0 as the first attempt", () => {
    expect(delayOf({ roundAttempts: 0 })).toBe(5 * S);
  });

  it("jitters a delay by up to ±10 %, from the injected random", () => {
    expect(JITTER_FRACTION).toBe(0.1);
    expect(delayOf({ roundAttempts: 2, random: () => 0 })).toBe(270 * S);
    expect(delayOf({ roundAttempts: 2, random: () => 0.999_999 })).toBe(Math.round(300 * S * (1 + 0.1 * (2 * 0.999_999 - 1))));
    expect(delayOf({ roundAttempts: 2, random: () => 0.75 })).toBe(315 * S);
    expect(delayOf({ roundAttempts: 1, random: () => 0.25 })).toBe(4_750);
  });

  it("rounds the jittered delay to whole milliseconds", () => {
    expect(delayOf({ roundAttempts: 1, random: () => 0.123_456_7 })).toBe(Math.round(5_000 * (1 + 0.1 * (2 * 0.123_456_7 - 1))));
    expect(Number.isInteger(delayOf({ roundAttempts: 1, random: () => 0.123_456_7 }))).toBe(true);
  });
});

describe("what counts as success", () => {
  it("is a 2xx answer only", () => {
    for (const code of [200, 201, 202, 204, 299]) expect(decide({ statusCode: code })).toEqual({ kind: "succeeded" });
    for (const code of [100, 199, 300, 301, 302, 304, 307, 308, 400, 401, 404, 429, 500, 503]) expect(decide({ statusCode: code }).kind).toBe("retry");
    expect(isSuccess(undefined)).toBe(false);
    expect(isSuccess(200)).toBe(true);
    expect(isSuccess(299)).toBe(true);
    expect(isSuccess(300)).toBe(false);
    expect(isSuccess(199)).toBe(false);
  });

  it("takes no answer at all (an error) as a failure", () => {
    expect(delayOf({ statusCode: undefined, error: "timed out after 15000 ms" })).toBe(5 * S);
  });

  it("succeeds even on the round's last attempt and on a long-failing endpoint", () => {
    expect(decide({ statusCode: 200, roundAttempts: 8, failingSince: new Date(NOW.getTime() - 10 * 24 * H) })).toEqual({ kind: "succeeded" });
  });
});

describe("disabling the endpoint", () => {
  it("disables it as gone on 410, whatever the round", () => {
    expect(decide({ statusCode: 410 })).toEqual({ kind: "disable", reason: "gone" });
    expect(decide({ statusCode: 410, roundAttempts: 8 })).toEqual({ kind: "disable", reason: "gone" });
  });

  it("disables it as failing once it has failed for 5 days, not a millisecond sooner", () => {
    expect(FAILING_DISABLE_AFTER_MS).toBe(5 * 24 * H);
    const since = (ms: number) => new Date(NOW.getTime() - ms);
    expect(decide({ failingSince: since(FAILING_DISABLE_AFTER_MS) })).toEqual({ kind: "disable", reason: "failing" });
    expect(decide({ failingSince: since(FAILING_DISABLE_AFTER_MS + 1) })).toEqual({ kind: "disable", reason: "failing" });
    expect(decide({ failingSince: since(FAILING_DISABLE_AFTER_MS - 1) }).kind).toBe("retry");
    expect(decide({ failingSince: since(FAILING_DISABLE_AFTER_MS), roundAttempts: 8 })).toEqual({ kind: "disable", reason: "failing" });
    expect(decide({ failingSince: since(FAILING_DISABLE_AFTER_MS), statusCode: undefined, error: "refused" })).toEqual({ kind: "disable", reason: "failing" });
  });

  it("does not disable an endpoint that is not failing", () => {
    expect(decide({ failingSince: null, roundAttempts: 7 }).kind).toBe("retry");
  });
});

describe("Retry-After", () => {
  it("waits longer than the schedule when a 429 or 503 asks for it in seconds", () => {
    expect(delayOf({ statusCode: 429, headers: { "retry-after": "60" } })).toBe(60 * S);
    expect(delayOf({ statusCode: 503, headers: { "retry-after": "60" } })).toBe(60 * S);
  });

  it("never brings the next attempt forward", () => {
    expect(delayOf({ statusCode: 429, roundAttempts: 2, headers: { "retry-after": "1" } })).toBe(300 * S);
    expect(delayOf({ statusCode: 429, roundAttempts: 2, headers: { "retry-after": "0" } })).toBe(300 * S);
  });

  it("is ignored on other statuses", () => {
    for (const statusCode of [500, 502, 504, 400, 408]) expect(delayOf({ statusCode, headers: { "retry-after": "60" } })).toBe(5 * S);
  });

  it("reads an HTTP date", () => {
    const at = new Date(NOW.getTime() + 90 * S).toUTCString();
    expect(delayOf({ statusCode: 503, headers: { "retry-after": at } })).toBe(90 * S);
  });

  it("is capped at a day", () => {
    expect(RETRY_AFTER_CAP_MS).toBe(24 * H);
    expect(delayOf({ statusCode: 429, headers: { "retry-after": String(7 * 24 * 3600) } })).toBe(24 * H);
    expect(delayOf({ statusCode: 429, headers: { "retry-after": String(24 * 3600 - 1) } })).toBe(24 * H - S);
  });

  it("still gives up after the last attempt", () => {
    expect(decide({ statusCode: 429, roundAttempts: 8, headers: { "retry-after": "5" } })).toEqual({ kind: "give_up" });
  });

  it("keeps the schedule when the header is missing or unreadable", () => {
    expect(delayOf({ statusCode: 429 })).toBe(5 * S);
    expect(delayOf({ statusCode: 429, headers: {} })).toBe(5 * S);
    expect(delayOf({ statusCode: 429, headers: { "retry-after": "soon" } })).toBe(5 * S);
    expect(delayOf({ statusCode: 429, headers: { "retry-after": "-30" } })).toBe(5 * S);
  });
});

describe("retryAfterMs", () => {
  it("reads whole seconds, trimmed", () => {
    expect(retryAfterMs("120", NOW)).toBe(120 * S);
    expect(retryAfterMs(" 7 ", NOW)).toBe(7 * S);
    expect(retryAfterMs("0", NOW)).toBe(0);
  });

  it("takes the first of repeated headers", () => {
    expect(retryAfterMs(["30", "60"], NOW)).toBe(30 * S);
  });

  it("reads an HTTP date, a past one as no wait", () => {
    expect(retryAfterMs("Fri, 27 Nov 2026 12:01:00 GMT", NOW)).toBe(60 * S);
    expect(retryAfterMs("Fri, 27 Nov 2026 11:00:00 GMT", NOW)).toBe(0);
  });

  it("answers undefined for what is neither", () => {
    for (const value of [undefined, "", "  ", "1.5", "-1", "1e3", "12:00", "2026-11-28", "not a date", []]) {
      expect(retryAfterMs(value as string | undefined, NOW), String(value)).toBeUndefined();
    }
  });
});
