import { describe, expect, it } from "vitest";
import { compareRuns, median, runOrder } from "./compare-summary.js";

describe("median", () => {
  it("is the middle value of an odd count, the mean of the middle two of an even one, null of none", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });
});

describe("runOrder", () => {
  it("alternates which tree goes first in each round", () => {
    expect(runOrder(1)).toEqual(["old", "new"]);
    expect(runOrder(3)).toEqual(["old", "new", "new", "old", "old", "new"]);
  });
});

describe("compareRuns", () => {
  const runs = [
    { tree: "old" as const, ratios: { createVsB1: 2.0, readVsB2: 1.5 } },
    { tree: "new" as const, ratios: { createVsB1: 1.9, readVsB2: 1.2 } },
    { tree: "new" as const, ratios: { createVsB1: 2.1, readVsB2: 1.3 } },
    { tree: "old" as const, ratios: { createVsB1: 2.2, readVsB2: 1.5 } },
  ];

  it("judges new over old on each tree's median against the floor", () => {
    const [create, read] = compareRuns(runs, ["createVsB1", "readVsB2"], 0.9);
    expect(create).toMatchObject({ key: "createVsB1", old: 2.1, new: 2.0, holds: true });
    expect(create!.change).toBeCloseTo(2.0 / 2.1, 10);
    expect(read).toMatchObject({ old: 1.5, new: 1.25, holds: false });
    expect(read!.change).toBeCloseTo(1.25 / 1.5, 10);
  });

  it("holds exactly at the floor", () => {
    const [r] = compareRuns([{ tree: "old", ratios: { a: 2 } }, { tree: "new", ratios: { a: 1.8 } }], ["a"], 0.9);
    expect(r!.holds).toBe(true);
  });

  it("leaves a ratio unjudged when one tree never measured it, ignoring nulls and non-finite values", () => {
    const [r] = compareRuns([{ tree: "old", ratios: { a: null } }, { tree: "new", ratios: { a: 1 } }, { tree: "old", ratios: { a: Number.POSITIVE_INFINITY } }], ["a"], 0.9);
    expect(r).toEqual({ key: "a", old: null, new: 1, change: null, holds: null });
  });
});
