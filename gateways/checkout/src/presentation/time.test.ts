import { describe, expect, it } from "vitest";
import { formatCountdown, formatDuration, formatUtc, secondsLeft } from "./time.js";

const deadline = new Date("2026-11-27T12:30:00.000Z");
const before = (ms: number) => new Date(deadline.getTime() - ms);

describe("secondsLeft", () => {
  it("counts whole seconds to the deadline by the server's clock, rounding up", () => {
    expect(secondsLeft(deadline, before(30 * 60_000))).toBe(1800);
    expect(secondsLeft(deadline, before(1_001))).toBe(2);
    expect(secondsLeft(deadline, before(1_000))).toBe(1);
    expect(secondsLeft(deadline, before(1))).toBe(1);
  });

  it("is 0 at and after the deadline", () => {
    expect(secondsLeft(deadline, deadline)).toBe(0);
    expect(secondsLeft(deadline, before(-1))).toBe(0);
    expect(secondsLeft(deadline, before(-86_400_000))).toBe(0);
  });
});

describe("formatCountdown", () => {
  it("reads as a clock", () => {
    expect(formatCountdown(1799)).toBe("29:59");
    expect(formatCountdown(60)).toBe("01:00");
    expect(formatCountdown(59)).toBe("00:59");
    expect(formatCountdown(0)).toBe("00:00");
    expect(formatCountdown(3599)).toBe("59:59");
    expect(formatCountdown(3600)).toBe("1:00:00");
    expect(formatCountdown(3661)).toBe("1:01:01");
    expect(formatCountdown(36_000)).toBe("10:00:00");
  });

  it("never shows a negative or fractional time", () => {
    expect(formatCountdown(-5)).toBe("00:00");
    expect(formatCountdown(61.9)).toBe("01:01");
  });
});

describe("formatUtc", () => {
  it("writes the instant in UTC with seconds", () => {
    expect(formatUtc(deadline)).toBe("27 Nov 2026, 12:30:00 UTC");
    expect(formatUtc(new Date("2027-01-05T03:04:05.999Z"))).toBe("5 Jan 2027, 03:04:05 UTC");
    expect(formatUtc(new Date("2026-12-31T23:59:59.000Z"))).toBe("31 Dec 2026, 23:59:59 UTC");
  });

  it("names every month", () => {
    const months = Array.from({ length: 12 }, (_, m) => formatUtc(new Date(Date.UTC(2026, m, 1))).split(" ")[1]);
    expect(months).toEqual(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]);
  });
});

describe("formatDuration", () => {
  it("uses the largest whole unit", () => {
    expect(formatDuration(1800)).toBe("30 minutes");
    expect(formatDuration(60)).toBe("1 minute");
    expect(formatDuration(3600)).toBe("1 hour");
    expect(formatDuration(7200)).toBe("2 hours");
    expect(formatDuration(5400)).toBe("90 minutes");
    expect(formatDuration(90)).toBe("90 seconds");
    expect(formatDuration(1)).toBe("1 second");
    expect(formatDuration(0)).toBe("0 seconds");
  });
});
