import { prepared, type Queryable } from "@payin/db";
import type { ObservationHealthSource } from "../domain/readiness.js";

/**
 * When the chain observer last advanced on each rail: the observer sets a
 * rail's `advanced_at` whenever it completes a pass on it (blocks read, or
 * nothing new), so a rail that stopped advancing (RPC down, lease not held,
 * observer stopped) keeps an old instant, and a rail never observed has no row;
 * a halted rail (endpoints that disagree, another chain, a finality violation)
 * counts as not observed.
 * One row per rail: a tiny read, on every readiness question.
 */
// A halted rail credits nothing: it is not observed, however recently it passed.
const OBSERVER_HEALTH = prepared<{ rail: string; advanced_at: string }>(
  "allocation.observer-health",
  `select rail, advanced_at from observer_cursors where halted_kind is null`,
);

/** ObservationHealthSource on allocation's observer cursors. */
export function observerHealth(db: Queryable): ObservationHealthSource {
  return {
    async lastAdvanced() {
      const rows = await db.query(OBSERVER_HEALTH);
      return new Map(rows.map((row) => [row.rail, new Date(row.advanced_at)]));
    },
  };
}
