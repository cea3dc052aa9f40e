import { prepared, type Queryable } from "@payin/db";
import type { Rail } from "@payin/money";
import { CLEAR_HALT_SQL, haltOf, STICKY_HALTS, type HaltRow, type RailHalt } from "./observation-repository.js";

/** A rail's observation as operators see it. */
export interface RailObservationView {
  rail: Rail;
  chainId: number;
  nextBlock: bigint;
  settledThrough: bigint | null;
  advancedAt: Date;
  halt: RailHalt | null;
}

const LIST_RAILS = prepared<HaltRow & { rail: Rail; chain_id: string; next_block: string; settled_through: string | null; advanced_at: string }>(
  "allocation.list-rails",
  `select rail, chain_id, next_block, settled_through, advanced_at, halted_kind, halted_reason, halted_at from observer_cursors order by rail`,
);

const HALTED_RAILS = prepared<{ rail: string }>("allocation.halted-rails", `select rail from observer_cursors where halted_kind is not null`);

/** How long the halted rails are kept before they are read again (allocations ask on every create). */
const HALTED_RAILS_TTL_MS = 1_000;

/** Clears a sticky halt; answers the halt cleared (the observer's own clearing statement). */
const RESUME_RAIL = prepared<HaltRow>("allocation.resume-rail", CLEAR_HALT_SQL);

/** The operators' view and control of the observer's rails (allocation's cursors). */
export function railControl(db: Queryable, clock: () => number = Date.now) {
  let halted: { at: number; rails: Promise<ReadonlySet<string>> } | undefined;
  return {
    /** The rails halted now (read at most once a second). */
    haltedRails(): Promise<ReadonlySet<string>> {
      const now = clock();
      if (!halted || now - halted.at >= HALTED_RAILS_TTL_MS) {
        const rails = db.query(HALTED_RAILS).then((rows) => new Set(rows.map((row) => row.rail)));
        halted = { at: now, rails };
        rails.catch(() => {
          if (halted?.rails === rails) halted = undefined;
        });
      }
      return halted.rails;
    },
    async list(): Promise<RailObservationView[]> {
      const rows = await db.query(LIST_RAILS);
      return rows.map((row) => ({
        rail: row.rail,
        chainId: Number(row.chain_id),
        nextBlock: BigInt(row.next_block),
        settledThrough: row.settled_through === null ? null : BigInt(row.settled_through),
        advancedAt: new Date(row.advanced_at),
        halt: haltOf(row),
      }));
    },
    /** Clears a halt only an operator clears (STICKY_HALTS); null when the rail had none. */
    async resume(rail: Rail, now: Date): Promise<RailHalt | null> {
      const [row] = await db.query(RESUME_RAIL, [rail, STICKY_HALTS, now]);
      return row ? haltOf(row) : null;
    },
  };
}
