import type { Watch } from "../domain/observation/matching.js";
import type { ObservationRepository } from "../store/observation-repository.js";

/**
 * Allocations a new read looks back over: one committed this long before the
 * newest one seen may still have been invisible at the previous refresh (its
 * transaction took a creation time before another's and committed after it).
 */
const COMMIT_OVERLAP_MS = 60_000;

/** How often the whole set is read again: watch ends set by another process's relay reach this one so. */
const FULL_RELOAD_MS = 10 * 60_000;

/**
 * The addresses the observer matches transfers against, by lower-case address:
 * every allocation whose watch has not ended, whatever its rail (an address is
 * the same on every EVM chain). Loaded whole now and then, in between only what
 * was allocated since; ended watches leave it.
 */
export class WatchedSet {
  private readonly byAddress = new Map<string, Watch & { watchUntil: Date | null }>();
  private newest: Date | null = null;
  private loadedAt: Date | null = null;

  constructor(private readonly store: ObservationRepository) {}

  get size(): number {
    return this.byAddress.size;
  }

  /** The current set: valid until the next refresh. */
  get addresses(): ReadonlyMap<string, Watch> {
    return this.byAddress;
  }

  /** Takes in what was allocated since the last refresh and drops watches that ended by `now`. */
  async refresh(now: Date): Promise<void> {
    const whole = !this.loadedAt || now.getTime() - this.loadedAt.getTime() >= FULL_RELOAD_MS;
    const since = !whole && this.newest ? new Date(this.newest.getTime() - COMMIT_OVERLAP_MS) : null;
    const rows = await this.store.watchedSince(since, now);
    if (whole) {
      this.byAddress.clear();
      this.loadedAt = now;
    }
    for (const row of rows) {
      this.byAddress.set(row.address, { intentUuid: row.intentUuid, rail: row.rail, watchUntil: row.watchUntil });
      if (!this.newest || row.createdAt > this.newest) this.newest = row.createdAt;
    }
    for (const [address, watch] of this.byAddress) {
      if (watch.watchUntil && watch.watchUntil <= now) this.byAddress.delete(address);
    }
  }

  /** Records when watches end (from payins' answers), so the set drops them without reloading. */
  setWatchEnds(ends: readonly { intentUuid: string; watchUntil: Date }[]): void {
    if (ends.length === 0) return;
    const byIntent = new Map(ends.map((e) => [e.intentUuid, e.watchUntil]));
    for (const watch of this.byAddress.values()) {
      const until = byIntent.get(watch.intentUuid);
      if (until) watch.watchUntil = until;
    }
  }
}
