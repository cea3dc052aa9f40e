import { isUuid } from "@payin/ids";
import type { MerchantDirectory, PayinContext } from "./create-pay-in-intent.js";

export interface PayinContextCacheOptions {
  /** How long an answer is used at most, even when no change was announced. */
  ttlMs: number;
  /** Most (merchant, jurisdiction) answers kept; the oldest merchant's go first. */
  maxEntries: number;
  /**
   * Resolves true once every change committed before the call has been
   * announced (passed to `changed`), false when that cannot be known; then the
   * lookup goes to the source.
   */
  catchUp: () => Promise<boolean>;
  /** A monotonic clock in milliseconds (default performance.now; tests move it). */
  now?: () => number;
  /** The source failed and a kept answer was used instead (startService logs it, once per cause). */
  onServedKept?: (error: unknown) => void;
}

type Entry = { context: PayinContext | null; expiresAt: number };

/**
 * A MerchantDirectory that keeps the answers of another for up to `ttlMs`,
 * dropping a merchant's when a change to it is announced (`changed`).
 *
 * A lookup that finds a kept answer first catches up with the announcements
 * (`catchUp`), so a change committed before the lookup began is always seen: a
 * create that follows a suspension is refused, however quickly it follows; a
 * lookup that finds nothing goes straight to the source. It answers from memory
 * only while announcements are known to arrive (between `listening` and
 * `lost`); otherwise every lookup goes to the source. When the source fails
 * (unreachable), an unexpired kept answer is used instead: while announcements
 * are lost, answers are at most `ttlMs` old. An answer is kept only
 * when no change was announced while it was being fetched: it may have been
 * read before that change committed.
 */
export class PayinContextCache implements MerchantDirectory {
  private readonly merchants = new Map<string, Map<string, Entry>>();
  private entries = 0;
  /** Bumped by every announcement and every (re)start: answers fetched across one are not kept. */
  private generation = 0;
  private live = false;
  private readonly now: () => number;

  constructor(
    private readonly source: MerchantDirectory,
    private readonly options: PayinContextCacheOptions,
  ) {
    this.now = options.now ?? (() => performance.now());
  }

  async payinContext(merchantUuid: string, jurisdiction: string): Promise<PayinContext | null> {
    // Announcements name canonical lower-case uuids; anything else is never kept.
    let cacheable = this.live && this.options.ttlMs > 0 && isUuid(merchantUuid);
    if (cacheable && this.entry(merchantUuid, jurisdiction)) {
      // Kept: first catch up, so that a change committed before this lookup
      // began has dropped it. (A lookup that finds nothing goes to the source,
      // which is current anyway.)
      if ((await this.options.catchUp()) && this.live) {
        const entry = this.entry(merchantUuid, jurisdiction);
        if (entry) return entry.context;
      } else {
        cacheable = false;
      }
    }
    const generation = this.generation;
    let context: PayinContext | null;
    try {
      context = await this.source.payinContext(merchantUuid, jurisdiction);
    } catch (error) {
      // The source is unreachable: an answer kept earlier serves until it expires
      // (however the announcements fare), so staleness stays within ttlMs.
      const kept = isUuid(merchantUuid) ? this.entry(merchantUuid, jurisdiction) : undefined;
      if (kept) {
        this.options.onServedKept?.(error);
        return kept.context;
      }
      throw error;
    }
    if (cacheable && this.live && generation === this.generation) this.keep(merchantUuid, jurisdiction, context);
    return context;
  }

  /** A change was announced: for one merchant (its uuid), or for all (`*`, or anything not a uuid). */
  changed(payload: string): void {
    this.generation++;
    if (isUuid(payload)) this.forget(payload);
    else this.clear();
  }

  /** Announcements arrive from now on; what was kept before may have missed some. */
  listening(): void {
    this.generation++;
    this.clear();
    this.live = true;
  }

  /**
   * Announcements may be missed from now on: every lookup asks the source until
   * `listening`. What was kept stays only as the fallback for a source that
   * fails, each answer until it expires; `listening` drops it.
   */
  lost(): void {
    this.live = false;
    this.generation++;
  }

  /** The unexpired answer kept for (merchant, jurisdiction), if any. */
  private entry(merchantUuid: string, jurisdiction: string): Entry | undefined {
    const entry = this.merchants.get(merchantUuid)?.get(jurisdiction);
    return entry && entry.expiresAt > this.now() ? entry : undefined;
  }

  private keep(merchantUuid: string, jurisdiction: string, context: PayinContext | null): void {
    const value: Entry = { context: context && Object.freeze({ ...context }), expiresAt: this.now() + this.options.ttlMs };
    const existing = this.merchants.get(merchantUuid);
    if (existing?.has(jurisdiction)) {
      existing.set(jurisdiction, value);
      return;
    }
    // A new entry: make room, the oldest merchant's answers first (possibly this merchant's own).
    while (this.entries >= this.options.maxEntries && this.merchants.size > 0) {
      this.forget(this.merchants.keys().next().value!);
    }
    let byJurisdiction = this.merchants.get(merchantUuid);
    if (!byJurisdiction) this.merchants.set(merchantUuid, (byJurisdiction = new Map()));
    byJurisdiction.set(jurisdiction, value);
    this.entries++;
  }

  private forget(merchantUuid: string): void {
    const byJurisdiction = this.merchants.get(merchantUuid);
    if (!byJurisdiction) return;
    this.entries -= byJurisdiction.size;
    this.merchants.delete(merchantUuid);
  }

  private clear(): void {
    this.merchants.clear();
    this.entries = 0;
  }
}
