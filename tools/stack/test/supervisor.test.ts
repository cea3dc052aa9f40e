/**
 * The supervisor of `npm start` on a fake platform and a fake clock: what it
 * restarts, when, what it logs, when it gives up, and that nothing is restarted
 * once it has been stopped. stack.test.ts has the real processes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { supervise, type SupervisorOptions } from "../src/supervisor.js";

interface FakeProcess {
  readonly child: { pid: number; signalCode: NodeJS.Signals | null };
  readonly exited: Promise<number | null>;
  /** Ends it as the kernel would report it. */
  end(code: number | null, signal?: NodeJS.Signals): void;
}

/** A platform whose processes end when the test says, and whose starts the test can make fail or hold. */
function fakePlatform(names: string[]) {
  let nextPid = 1000;
  const processes = new Map<string, FakeProcess>();
  const launch = (name: string) => {
    let resolve!: (code: number | null) => void;
    const proc: FakeProcess = {
      child: { pid: nextPid++, signalCode: null },
      exited: new Promise((r) => (resolve = r)),
      end(code, signal) {
        proc.child.signalCode = signal ?? null;
        resolve(code);
      },
    };
    processes.set(name, proc);
  };
  for (const name of names) launch(name);
  const fake = {
    processes,
    starts: [] as string[],
    /** The next this many starts fail as a process that exits before it is ready. */
    failingStarts: 0,
    /** When set, starts wait for it. */
    hold: undefined as Promise<void> | undefined,
    async start(name: string) {
      fake.starts.push(name);
      await fake.hold;
      if (fake.failingStarts > 0) {
        fake.failingStarts--;
        throw new Error(`${name} exited with code 1 before it was ready`);
      }
      launch(name);
    },
  };
  return fake;
}

let lines: string[];
let started: [string, number][];
let gaveUp: [string, string][];

function superviseFake(platform: ReturnType<typeof fakePlatform>) {
  return supervise({
    platform: platform as unknown as SupervisorOptions["platform"],
    log: (line) => lines.push(line),
    onStarted: (name, pid) => started.push([name, pid]),
    onGiveUp: (name, message) => gaveUp.push([name, message]),
  });
}

beforeEach(() => {
  vi.useFakeTimers();
  lines = [];
  started = [];
  gaveUp = [];
});
afterEach(() => {
  vi.useRealTimers();
});

describe("supervisor", () => {
  it("restarts a process that exits on its own after 0.5 s, logging its exit in one line, and reports each pid", async () => {
    const platform = fakePlatform(["identity", "payins", "api"]);
    superviseFake(platform);
    expect(started).toEqual([
      ["identity", 1000],
      ["payins", 1001],
      ["api", 1002],
    ]);

    platform.processes.get("payins")!.end(null, "SIGKILL");
    await vi.advanceTimersByTimeAsync(499);
    expect(lines).toEqual(["payins exited (code null, signal SIGKILL); restarting in 0.5 s"]);
    expect(platform.starts).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(platform.starts).toEqual(["payins"]);
    expect(lines.at(-1)).toBe("payins restarted");
    expect(started.at(-1)).toEqual(["payins", 1003]);

    // The restarted process is supervised in turn; a second crash soon after waits longer.
    platform.processes.get("payins")!.end(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(lines.at(-1)).toBe("payins exited (code 1); restarting in 1 s");
    expect(platform.starts).toEqual(["payins"]);
    await vi.advanceTimersByTimeAsync(1);
    expect(platform.starts).toEqual(["payins", "payins"]);
    expect(gaveUp).toEqual([]);
  });

  it("gives up on a process at its 5th crash within 60 s, with one line naming it, and does not restart it", async () => {
    const platform = fakePlatform(["merchants"]);
    superviseFake(platform);
    for (let crash = 1; crash <= 5; crash++) {
      platform.processes.get("merchants")!.end(1);
      await vi.advanceTimersByTimeAsync(10_000);
    }
    expect(platform.starts).toHaveLength(4);
    expect(lines.filter((line) => line.includes("restarting"))).toEqual([
      "merchants exited (code 1); restarting in 0.5 s",
      "merchants exited (code 1); restarting in 1 s",
      "merchants exited (code 1); restarting in 2 s",
      "merchants exited (code 1); restarting in 4 s",
    ]);
    expect(gaveUp).toEqual([
      [
        "merchants",
        "merchants exited (code 1): 5 crashes within 60 s, so it is not restarted; stopping the platform (merchants's log lines above say why)",
      ],
    ]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(platform.starts).toHaveLength(4);
  });

  it("counts a start that fails as a crash, and gives up on a process that cannot start", async () => {
    const platform = fakePlatform(["allocation"]);
    superviseFake(platform);
    platform.failingStarts = 100;
    platform.processes.get("allocation")!.end(null, "SIGKILL");
    await vi.advanceTimersByTimeAsync(30_000);
    expect(platform.starts).toHaveLength(4);
    expect(lines).toContain("allocation failed to start (allocation exited with code 1 before it was ready); restarting in 1 s");
    expect(gaveUp.map(([name]) => name)).toEqual(["allocation"]);
    expect(gaveUp[0]![1]).toMatch(/^allocation failed to start \(allocation exited with code 1 before it was ready\): 5 crashes within 60 s/);
  });

  it("once stopped, restarts nothing (a restart waiting is dropped) and reports every exit as a step of the shutdown", async () => {
    const platform = fakePlatform(["payins", "api", "observer"]);
    const supervisor = superviseFake(platform);
    platform.processes.get("payins")!.end(null, "SIGKILL");
    await vi.advanceTimersByTimeAsync(0);
    expect(lines).toEqual(["payins exited (code null, signal SIGKILL); restarting in 0.5 s"]);

    await supervisor.stop();
    platform.processes.get("api")!.end(0);
    platform.processes.get("observer")!.end(null, "SIGKILL"); // a crash in the shutdown
    await vi.advanceTimersByTimeAsync(60_000);
    expect(platform.starts).toEqual([]);
    expect(lines.slice(1)).toEqual(["  api stopped", "  observer stopped (code null, signal SIGKILL)"]);
    expect(gaveUp).toEqual([]);
  });

  it("stop() waits for a restart under way, whose process is then reported when it stops", async () => {
    const platform = fakePlatform(["payins"]);
    const supervisor = superviseFake(platform);
    let release!: () => void;
    platform.hold = new Promise((resolve) => (release = resolve));
    platform.processes.get("payins")!.end(null, "SIGKILL");
    await vi.advanceTimersByTimeAsync(500);
    expect(platform.starts).toEqual(["payins"]);

    let stopped = false;
    void supervisor.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(stopped).toBe(false);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(true);
    expect(started.at(-1)).toEqual(["payins", 1001]);
    expect(lines).not.toContain("payins restarted");

    platform.processes.get("payins")!.end(0);
    await vi.advanceTimersByTimeAsync(0);
    expect(lines.at(-1)).toBe("  payins stopped");
  });
});
