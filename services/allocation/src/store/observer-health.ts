import type { PreparedStatement, SqlClient } from "@payin/db";
import type { ObservationHealthSource } from "../domain/readiness.js";

/**
 * When the chain observer last advanced on each rail: the observer sets a
 * rail's `advanced_at` whenever it completes a pass on it (blocks read, or
 * nothing new), so a rail that stopped advancing (RPC down, lease not held,
 * observer stopped) keeps an old instant, and a rail never observed has no row.
 * One row per rail: a tiny read, on every readiness question.
 */
const OBSERVER_HEALTH: PreparedStatement = {
  name: "allocation.observer-health",
  text: `select rail, advanced_at from observer_cursors`,
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
