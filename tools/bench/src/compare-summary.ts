/**
 * The arithmetic of `npm run bench:compare`: runs of the bench on two trees
 * (`old` and `new`), alternating, each reporting the same ratios; per ratio the
 * median of each tree's runs, and new over old. A ratio holds when new is at
 * least `floor` × old (higher ratios are better: faster than the same run's
 * baseline).
 */
export type Tree = "old" | "new";

export interface CompareRun {
  tree: Tree;
  /** Ratio key → value in that run (null: not measured). */
  ratios: Record<string, number | null>;
}

export interface ComparedRatio {
  key: string;
  old: number | null;
  new: number | null;
  /** new / old; null when either side was never measured. */
  change: number | null;
  holds: boolean | null;
}

/** Median of the values (the mean of the middle two for an even count); null when there are none. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The order of `rounds` × 2 runs: old, new, new, old, old, new, … so that neither tree always goes first. */
export function runOrder(rounds: number): Tree[] {
  const order: Tree[] = [];
  for (let round = 0; round < rounds; round++) order.push(...(round % 2 === 0 ? (["old", "new"] as const) : (["new", "old"] as const)));
  return order;
}

export function compareRuns(runs: readonly CompareRun[], keys: readonly string[], floor: number): ComparedRatio[] {
  return keys.map((key) => {
    const of = (tree: Tree) =>
      median(runs.filter((r) => r.tree === tree).flatMap((r) => (typeof r.ratios[key] === "number" && Number.isFinite(r.ratios[key]) ? [r.ratios[key]] : [])));
    const old = of("old");
    const next = of("new");
    const change = old !== null && next !== null && old > 0 ? next / old : null;
    return { key, old, new: next, change, holds: change === null ? null : change >= floor };
  });
}
