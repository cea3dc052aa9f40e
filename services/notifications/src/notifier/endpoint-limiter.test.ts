import { afterEach, describe, expect, it, vi } from "vitest";
import { EndpointLimiter } from "./endpoint-limiter.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("EndpointLimiter", () => {
  it("lets `limit` deliveries per endpoint through at once, other endpoints unaffected", async () => {
    const limiter = new EndpointLimiter(2, 0);
    expect(await limiter.acquire("a")).toBe(true);
    expect(await limiter.acquire("a")).toBe(true);
    expect(await limiter.acquire("a")).toBe(false);
    expect(await limiter.acquire("b")).toBe(true);
    expect(limiter.of("a")).toBe(2);
    expect(limiter.total()).toBe(3);
    limiter.release("a");
    expect(limiter.of("a")).toBe(1);
    expect(await limiter.acquire("a")).toBe(true);
    limiter.release("a");
    limiter.release("a");
    limiter.release("b");
    expect(limiter.total()).toBe(0);
  });

  it("hands a released slot to the first waiter, in order", async () => {
    const limiter = new EndpointLimiter(1, 10_000);
    expect(await limiter.acquire("a")).toBe(true);
    const order: string[] = [];
    const first = limiter.acquire("a").then((ok) => order.push(`first ${ok}`));
    const second = limiter.acquire("a").then((ok) => order.push(`second ${ok}`));
    // A newcomer does not overtake the waiters even when a slot is free at that instant.
    limiter.release("a");
    await first;
    expect(order).toEqual(["first true"]);
    expect(limiter.of("a")).toBe(1);
    limiter.release("a");
    await second;
    expect(order).toEqual(["first true", "second true"]);
    limiter.release("a");
    expect(limiter.of("a")).toBe(0);
  });

  it("answers false to a waiter when no slot frees within the wait, and forgets it", async () => {
    vi.useFakeTimers();
    const limiter = new EndpointLimiter(1, 250);
    expect(await limiter.acquire("a")).toBe(true);
    const waiting = limiter.acquire("a");
    vi.advanceTimersByTime(249);
    let settled = false;
    void waiting.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await waiting).toBe(false);
    // The slot released afterwards goes back to the pool, not to the gone waiter.
    limiter.release("a");
    expect(limiter.of("a")).toBe(0);
    expect(await limiter.acquire("a")).toBe(true);
  });
});
