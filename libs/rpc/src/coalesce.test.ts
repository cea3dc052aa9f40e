import { describe, expect, it } from "vitest";
import { coalesce } from "./coalesce.js";
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

  it("refuses a maxBatch below one", () => {
    expect(() => coalesce(async (keys: number[]) => keys, { maxBatch: 0 })).toThrow(RangeError);
  });
});
