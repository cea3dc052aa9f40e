import { afterEach, describe, expect, it, vi } from "vitest";
import { coalesce, coalesceByGroup } from "./coalesce.js";
import { currentContext, runWithContext } from "./context.js";

/** A batch loader that records each batch it was given and the request id it ran under. */
function recordingLoader<K, V>(answer: (keys: K[]) => V[] | Promise<V[]>) {
  const batches: { keys: K[]; requestId: string | undefined }[] = [];
  const load = async (keys: K[]) => {
    batches.push({ keys, requestId: currentContext()?.requestId });
    return answer(keys);
  };
  return { batches, load };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("coalesce", () => {
  it("answers calls made in one turn of the event loop with one batch, each with its own value, in order", async () => {
    const { batches, load } = recordingLoader((keys: number[]) => keys.map((k) => k * 10));
    const get = coalesce(load, { maxBatch: 100 });
    const values = await Promise.all([get(1), get(2), get(3), get(2)]);
    expect(values).toEqual([10, 20, 30, 20]);
    expect(batches.map((b) => b.keys)).toEqual([[1, 2, 3, 2]]);
  });

  it("sends calls of different turns in different batches", async () => {
    const { batches, load } = recordingLoader((keys: string[]) => keys.map((k) => k.toUpperCase()));
    const get = coalesce(load, { maxBatch: 100 });
    const first = get("a");
    await nextTurn();
    const second = get("b");
    expect(await Promise.all([first, second])).toEqual(["A", "B"]);
    expect(batches.map((b) => b.keys)).toEqual([["a"], ["b"]]);
  });

  it("sends a batch as soon as it holds maxBatch keys", async () => {
    const { batches, load } = recordingLoader((keys: number[]) => keys);
    const get = coalesce(load, { maxBatch: 3 });
    const values = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((k) => get(k)));
    expect(values).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(batches.map((b) => b.keys)).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });

  it("fails every call of a batch whose load fails, and only that batch", async () => {
    let calls = 0;
    const get = coalesce(async (keys: number[]) => {
      calls += 1;
      if (calls === 1) throw new Error("service unavailable");
      return keys;
    }, { maxBatch: 100 });
    const failed = await Promise.allSettled([get(1), get(2)]);
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(failed.map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(["service unavailable", "service unavailable"]);
    expect(await get(3)).toBe(3);
  });

  it("fails the batch, not the process, when the load throws instead of rejecting", async () => {
    const get = coalesce((): Promise<number[]> => {
      throw new Error("thrown, not rejected");
    }, { maxBatch: 100 });
    const results = await Promise.allSettled([get(1), get(2)]);
    expect(results.map((r) => (r as PromiseRejectedResult).reason?.message)).toEqual(["thrown, not rejected", "thrown, not rejected"]);
  });

  it("fails the batch when the load answers a different number of values", async () => {
    const get = coalesce(async (keys: number[]) => keys.slice(1), { maxBatch: 100 });
    const results = await Promise.allSettled([get(1), get(2)]);
    for (const r of results) {
      expect(r.status).toBe("rejected");
      expect((r as PromiseRejectedResult).reason.message).toBe("a batch of 2 was answered with 1 values");
    }
  });

  it("runs a batch of one in its caller's request context and a larger batch in none", async () => {
    const { batches, load } = recordingLoader((keys: number[]) => keys);
    const get = coalesce(load, { maxBatch: 100 });
    await runWithContext({ requestId: "req-alone" }, () => get(1));
    await Promise.all([runWithContext({ requestId: "req-a" }, () => get(2)), runWithContext({ requestId: "req-b" }, () => get(3))]);
    expect(batches).toEqual([
      { keys: [1], requestId: "req-alone" },
      { keys: [2, 3], requestId: undefined },
    ]);
    // The caller's context is untouched by the batching.
    await runWithContext({ requestId: "req-c" }, async () => {
      await get(4);
      expect(currentContext()?.requestId).toBe("req-c");
    });
  });

  it("refuses a maxBatch below one, and an inFlight below one", () => {
    expect(() => coalesce(async (keys: number[]) => keys, { maxBatch: 0 })).toThrow(RangeError);
    expect(() => coalesce(async (keys: number[]) => keys, { maxBatch: 10, inFlight: 0 })).toThrow(RangeError);
    expect(() => coalesce(async (keys: number[]) => keys, { maxBatch: 10, linger: -1 })).toThrow(RangeError);
    expect(() => coalesce(async (keys: number[]) => keys, { maxBatch: 10, linger: Number.NaN })).toThrow(RangeError);
  });
});

/** A loader whose batches stay running until released, recording how many ran at once. */
function gatedLoader() {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  let running = 0;
  let mostRunning = 0;
  const load = async (keys: number[]) => {
    batches.push(keys);
    running += 1;
    mostRunning = Math.max(mostRunning, running);
    await new Promise<void>((release) => gates.push(release));
    running -= 1;
    return keys.map((k) => k * 10);
  };
  const releaseAll = () => gates.splice(0).forEach((release) => release());
  return { batches, load, releaseAll, mostRunning: () => mostRunning };
}

describe("coalesce with inFlight", () => {
  it("holds calls made while a batch runs and sends them together, in order, when it ends", async () => {
    const { batches, load, releaseAll, mostRunning } = gatedLoader();
    const get = coalesce(load, { maxBatch: 100, inFlight: 1 });
    const first = get(1);
    await nextTurn();
    // Three more turns of calls while the first batch runs.
    const later: Promise<number>[] = [];
    for (let turn = 0; turn < 3; turn++) {
      later.push(get(10 + turn), get(20 + turn));
      await nextTurn();
    }
    expect(batches).toEqual([[1]]);
    releaseAll();
    expect(await first).toBe(10);
    await nextTurn();
    expect(batches).toEqual([[1], [10, 20, 11, 21, 12, 22]]);
    releaseAll();
    expect(await Promise.all(later)).toEqual([100, 200, 110, 210, 120, 220]);
    expect(mostRunning()).toBe(1);
  });

  it("splits what waited into batches of maxBatch, running at most inFlight at once", async () => {
    const { batches, load, releaseAll, mostRunning } = gatedLoader();
    const get = coalesce(load, { maxBatch: 2, inFlight: 2 });
    const all = Promise.all([1, 2, 3, 4, 5, 6, 7].map((k) => get(k)));
    await nextTurn();
    expect(batches).toEqual([[1, 2], [3, 4]]);
    while (batches.length < 4) {
      releaseAll();
      await nextTurn();
    }
    releaseAll();
    expect(await all).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(batches).toEqual([[1, 2], [3, 4], [5, 6], [7]]);
    expect(mostRunning()).toBe(2);
  });

  it("goes on after a failed batch", async () => {
    let calls = 0;
    const get = coalesce(async (keys: number[]) => {
      calls += 1;
      if (calls === 1) throw new Error("down");
      return keys;
    }, { maxBatch: 100, inFlight: 1 });
    const failed = get(1);
    const next = get(2);
    await expect(failed).rejects.toThrow("down");
    await expect(next).rejects.toThrow("down"); // same turn, same batch
    expect(await get(3)).toBe(3);
  });
});

describe("coalesce with linger", () => {
  // Only the linger's timer is faked: turns of the event loop (setImmediate) stay real.
  const fakeTimers = () => vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends a call made while nothing runs at the end of its turn, without lingering", async () => {
    fakeTimers();
    const { batches, load, releaseAll } = gatedLoader();
    const get = coalesce(load, { maxBatch: 100, inFlight: 2, linger: 5 });
    const first = get(1);
    await nextTurn();
    expect(batches).toEqual([[1]]);
    releaseAll();
    expect(await first).toBe(10);
  });

  it("holds calls that find a free place while a batch runs for the linger, over several turns, then sends them together", async () => {
    fakeTimers();
    const { batches, load, releaseAll } = gatedLoader();
    const get = coalesce(load, { maxBatch: 100, inFlight: 2, linger: 5 });
    const first = get(1);
    await nextTurn();
    const later: Promise<number>[] = [];
    for (let turn = 0; turn < 3; turn++) {
      later.push(get(10 + turn));
      await nextTurn();
    }
    // Without the linger, 10 would have left alone at the end of its turn.
    expect(batches).toEqual([[1]]);
    vi.advanceTimersByTime(4);
    await nextTurn();
    expect(batches).toEqual([[1]]);
    vi.advanceTimersByTime(1);
    await nextTurn();
    expect(batches).toEqual([[1], [10, 11, 12]]);
    releaseAll();
    expect(await first).toBe(10);
    expect(await Promise.all(later)).toEqual([100, 110, 120]);
  });

  it("sends a batch that fills up during the linger at once", async () => {
    fakeTimers();
    const { batches, load, releaseAll } = gatedLoader();
    const get = coalesce(load, { maxBatch: 3, inFlight: 2, linger: 5 });
    const first = get(1);
    await nextTurn();
    const later = [get(2), get(3)];
    await nextTurn();
    expect(batches).toEqual([[1]]);
    later.push(get(4));
    await nextTurn(); // the linger's timer is fake: only filling up can have sent it
    expect(batches).toEqual([[1], [2, 3, 4]]);
    releaseAll();
    expect(await Promise.all([first, ...later])).toEqual([10, 20, 30, 40]);
  });

  it("stops lingering when the running batch ends: with nothing running, what waits leaves", async () => {
    fakeTimers();
    const { batches, load, releaseAll } = gatedLoader();
    const get = coalesce(load, { maxBatch: 100, inFlight: 2, linger: 5 });
    const first = get(1);
    await nextTurn();
    const second = get(2);
    await nextTurn();
    expect(batches).toEqual([[1]]);
    releaseAll();
    expect(await first).toBe(10);
    await nextTurn();
    expect(batches).toEqual([[1], [2]]);
    releaseAll();
    expect(await second).toBe(20);
  });

  it("does not linger for calls that waited for a place: they leave as soon as one frees", async () => {
    fakeTimers();
    const { batches, load, releaseAll } = gatedLoader();
    const get = coalesce(load, { maxBatch: 100, inFlight: 1, linger: 5 });
    const first = get(1);
    await nextTurn();
    const queued = [get(2), get(3)];
    await nextTurn();
    releaseAll();
    expect(await first).toBe(10);
    await nextTurn();
    expect(batches).toEqual([[1], [2, 3]]);
    releaseAll();
    expect(await Promise.all(queued)).toEqual([20, 30]);
  });
});

describe("coalesceByGroup", () => {
  it("never mixes groups in a batch, and bounds each group's batches on its own", async () => {
    const batches: { group: string; keys: string[] }[] = [];
    const gates = new Map<string, () => void>();
    const get = coalesceByGroup(
      (key: string) => key[0]!,
      async (group, keys: string[]) => {
        batches.push({ group, keys });
        await new Promise<void>((release) => gates.set(group, release));
        return keys.map((k) => k.toUpperCase());
      },
      { maxBatch: 100, inFlight: 1 },
    );
    const firstRound = Promise.all(["a1", "b1", "a2"].map((k) => get(k)));
    await nextTurn();
    expect(batches).toEqual([{ group: "a", keys: ["a1", "a2"] }, { group: "b", keys: ["b1"] }]);
    const a3 = get("a3");
    const b2 = get("b2");
    await nextTurn();
    expect(batches).toHaveLength(2); // both groups busy: both wait
    gates.get("b")!();
    await nextTurn();
    // b's next batch leaves while a's first still runs.
    expect(batches[2]).toEqual({ group: "b", keys: ["b2"] });
    gates.get("b")!();
    expect(await b2).toBe("B2");
    gates.get("a")!();
    expect(await firstRound).toEqual(["A1", "B1", "A2"]);
    await nextTurn();
    gates.get("a")!();
    expect(await a3).toBe("A3");
    expect(batches[3]).toEqual({ group: "a", keys: ["a3"] });
  });
});
