import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startLoop, type LoopOptions } from "./background-loop.js";

function logger() {
  return { warn: vi.fn(), info: vi.fn() };
}

function options(pass: LoopOptions["pass"], log = logger()): LoopOptions {
  return { pass, idleMs: 100, minBackoffMs: 250, maxBackoffMs: 1_000, logger: log, failing: "failing", recovered: "recovered" };
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe("startLoop", () => {
  it("passes at once, back to back while work waits, then every idleMs", async () => {
    const answers = [true, true, false, false];
    const pass = vi.fn(async () => answers.shift() ?? false);
    const loop = startLoop(options(pass));
    await vi.advanceTimersByTimeAsync(1);
    expect(pass).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(98);
    expect(pass).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(2);
    expect(pass).toHaveBeenCalledTimes(4);
    await loop.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(pass).toHaveBeenCalledTimes(4);
  });

  it("runs a pass at once when woken while idle", async () => {
    const pass = vi.fn(async () => false);
    const loop = startLoop(options(pass));
    await vi.advanceTimersByTimeAsync(0);
    expect(pass).toHaveBeenCalledTimes(1);
    loop.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(pass).toHaveBeenCalledTimes(2);
    await loop.stop();
    loop.wake();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(pass).toHaveBeenCalledTimes(2);
  });

  it("backs off after failures, doubling up to the most, logs an outage once and its end, and is not woken out of a backoff", async () => {
    const log = logger();
    let failing = 4;
    const pass = vi.fn(async () => {
      if (failing-- > 0) throw new Error("down");
      return false;
    });
    const loop = startLoop(options(pass, log));
    await vi.advanceTimersByTimeAsync(0);
    expect(pass).toHaveBeenCalledTimes(1);
    loop.wake();
    await vi.advanceTimersByTimeAsync(249);
    expect(pass).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(pass).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(500);
    expect(pass).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(999);
    expect(pass).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(pass).toHaveBeenCalledTimes(4);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(pass).toHaveBeenCalledTimes(5);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(log.warn).toHaveBeenCalledWith({ err: expect.any(Error) }, "failing");
    expect(log.info).toHaveBeenCalledExactlyOnceWith("recovered");
    await vi.advanceTimersByTimeAsync(100);
    expect(pass).toHaveBeenCalledTimes(6);
    await loop.stop();
  });

  it("waits for a pass under way when stopped", async () => {
    let finish!: () => void;
    const pass = vi.fn(() => new Promise<boolean>((resolve) => (finish = () => resolve(false))));
    const loop = startLoop(options(pass));
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
  });
});
