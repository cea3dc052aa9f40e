import { describe, expect, it } from "vitest";
import { RestartPolicy } from "../src/restart-policy.js";

/** Runs `policy` through crashes each `ranMs` after the restart before it (restarts take no time). */
function crashSeries(policy: RestartPolicy, ranMs: number, crashes: number, start = 0) {
  let now = start;
  policy.started(now);
  const decisions = [];
  for (let i = 0; i < crashes; i++) {
    now += ranMs;
    const decision = policy.exited(now);
    decisions.push(decision);
    if (decision.kind === "give-up") break;
    now += decision.delayMs;
    policy.started(now);
  }
  return { decisions, now };
}

describe("restart policy", () => {
  it("pauses 0.5 s, then twice as long after each crash in a row, 10 s at most", () => {
    // Crashes 3 s apart: fewer than 5 within 60 s only while the pauses grow.
    const policy = new RestartPolicy({ firstDelayMs: 500, maxDelayMs: 10_000, stableAfterMs: 30_000, maxCrashes: 100, crashWindowMs: 60_000 });
    const { decisions } = crashSeries(policy, 3_000, 8);
    expect(decisions.map((d) => (d.kind === "restart" ? d.delayMs : d.kind))).toEqual([500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000]);
  });

  it("starts over at 0.5 s once the process has run 30 s, and not before", () => {
    const policy = new RestartPolicy();
    const { now } = crashSeries(policy, 20_000, 3); // 0.5 s, 1 s, 2 s
    policy.started(now);
    expect(policy.exited(now + 29_999)).toEqual({ kind: "restart", delayMs: 4_000 });
    policy.started(now + 40_000);
    expect(policy.exited(now + 70_000)).toEqual({ kind: "restart", delayMs: 500 });
  });

  it("gives up at the 5th crash within 60 s", () => {
    const policy = new RestartPolicy();
    const { decisions } = crashSeries(policy, 1_000, 10);
    expect(decisions.map((d) => d.kind)).toEqual(["restart", "restart", "restart", "restart", "give-up"]);
    expect(decisions.at(-1)).toEqual({ kind: "give-up", crashes: 5, windowMs: 60_000 });
  });

  it("counts failed starts (never ready) as crashes, which never reset the series", () => {
    const policy = new RestartPolicy();
    policy.started(0);
    // Ready for 40 s, then four starts that fail 50 s apart: pauses keep growing, no give-up (one per window).
    expect(policy.exited(40_000)).toEqual({ kind: "restart", delayMs: 500 });
    expect(policy.exited(90_000)).toEqual({ kind: "restart", delayMs: 1_000 });
    expect(policy.exited(140_000)).toEqual({ kind: "restart", delayMs: 2_000 });
    expect(policy.exited(190_000)).toEqual({ kind: "restart", delayMs: 4_000 });
  });

  it("forgets crashes older than 60 s: four crashes a minute go on being restarted", () => {
    const policy = new RestartPolicy();
    let now = 0;
    policy.started(now);
    for (let i = 0; i < 20; i++) {
      now += 15_001; // 4 a minute, each after less than 30 s of running
      const decision = policy.exited(now);
      expect(decision.kind, `crash ${i + 1}`).toBe("restart");
      policy.started(now);
    }
  });
});
