import { describe, expect, it } from "vitest";
import { accountDelayMs, refusalOf } from "./throttle.js";
import type { FailureCount, Reservation } from "./stores.js";

const none: FailureCount = { count: 0, latestAt: null, nthLatestAt: null };
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
const reservation = (over: Partial<Reservation>): Reservation => ({ attemptId: "1", pair: none, account: none, ip: none, challengeFailures: 0, ...over });

describe("accountDelayMs", () => {
  it("is nothing for 10 consecutive failures, then doubles from 1 s up to 15 minutes", () => {
    expect([0, 9, 10, 11, 12, 19, 20, 99, 1_000].map(accountDelayMs)).toEqual([0, 0, 1_000, 2_000, 4_000, 512_000, 900_000, 900_000, 900_000]);
  });
});

describe("refusalOf", () => {
  it("refuses nothing under every limit", () => {
    expect(refusalOf(reservation({ pair: { count: 4, latestAt: at(0), nthLatestAt: null } }), at(0))).toBeNull();
  });

  it("answers the latest of the limits that hold, in whole seconds, at least 1", () => {
    const pair = { count: 5, latestAt: at(0), nthLatestAt: at(-60_000) };
    const account = { count: 10, latestAt: at(0), nthLatestAt: null };
    expect(refusalOf(reservation({ pair }), at(0))).toEqual({ limit: "email_client_ip", retryAfterSeconds: 840 });
    expect(refusalOf(reservation({ account }), at(1))).toEqual({ limit: "account_delay", retryAfterSeconds: 1 });
    expect(refusalOf(reservation({ pair, account }), at(0))).toEqual({ limit: "email_client_ip", retryAfterSeconds: 840 });
    expect(refusalOf(reservation({ challengeFailures: 5 }), at(0))).toEqual({ limit: "mfa_challenge", retryAfterSeconds: 1 });
  });

  it("never waits for a concurrent failure while the account's failures are free", () => {
    expect(refusalOf(reservation({ account: { count: 9, latestAt: at(5), nthLatestAt: null } }), at(0))).toBeNull();
  });
});
