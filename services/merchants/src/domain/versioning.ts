import { DomainError } from "@payin/errors";
import { MerchantsReason } from "./reasons.js";
import type { Effect } from "./validation.js";

/**
 * A version of a versioned record (rule or policy). Versions of one key are
 * numbered 1, 2, 3 ... without gaps; exactly the last one is open
 * (`validTo` null), and each closes at the instant its successor opens.
 */
export interface Versioned {
  effect: Effect;
  version: number;
  validFrom: Date;
  validTo: Date | null;
}

/**
 * Thrown by a store when a concurrent writer won the race for a version (a
 * unique index refused the write). The transaction is lost; the operation may be
 * run again once.
 */
export class ConcurrentVersionWrite extends Error {
  constructor() {
    super("a concurrent write created the same version");
    this.name = "ConcurrentVersionWrite";
  }
}

/**
 * Number and start of the version that follows `open` (or the first one). The
 * start never precedes the open version's start, even when clocks of two
 * processes disagree. `unchanged` is thrown when the open version already has
 * `effect`: a new version would change nothing.
 */
export function nextVersion(
  open: Versioned | null,
  effect: Effect,
  now: Date,
  unchanged: () => DomainError,
): { version: number; validFrom: Date } {
  if (!open) return { version: 1, validFrom: now };
  if (open.effect === effect) throw unchanged();
  const validFrom = now.getTime() < open.validFrom.getTime() ? open.validFrom : now;
  return { version: open.version + 1, validFrom };
}

/**
 * Runs `work` and, when it lost a version race, once more (the second run sees
 * the winner's version). Losing twice answers CONCURRENT_CHANGE.
 */
export async function withVersionRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ConcurrentVersionWrite)) throw error;
      if (attempt >= 2) {
        throw new DomainError(MerchantsReason.ConcurrentChange, "a concurrent change won; read the current version and retry");
      }
    }
  }
}
