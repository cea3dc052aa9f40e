import type { PreparedStatement, SqlClient } from "@payin/db";
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
const OBSERVER_HEALTH: PreparedStatement = {
  name: "allocation.observer-health",
  // A halted rail credits nothing: it is not observed, however recently it passed.
  text: `select rail, advanced_at from observer_cursors where halted_kind is null`,
};

/** ObservationHealthSource on allocation's observer cursors. */
export function observerHealth(sql: SqlClient): ObservationHealthSource {
  return {
    async lastAdvanced() {
      const rows = await sql.query(OBSERVER_HEALTH, []);
      return new Map(rows.map((row) => [row.rail as string, new Date(row.advanced_at as string | Date)]));
    },
  };
}
