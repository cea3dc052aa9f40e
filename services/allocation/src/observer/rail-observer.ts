import type { Logger } from "@payin/logging";
import type { RailConfig } from "@payin/rails";
import type { Address } from "viem";
import type { ChainReader, TransferLog } from "../chain/evm-reader.js";
import { checkLinks, commonAncestor, nextRange, settledNumber, type BlockRef, type FetchedHeader } from "../domain/observation/chain-view.js";
import { matchTransfers } from "../domain/observation/matching.js";
import type { ObservationRepository } from "../store/observation-repository.js";
import type { WatchedSet } from "./watched-set.js";

/** What one pass did (for logs, tests and the bench). */
export type PassOutcome =
  | { kind: "read"; from: bigint; to: bigint; transfers: number; settledUpTo: bigint | null }
  | { kind: "caught-up"; settledUpTo: bigint | null }
  | { kind: "rewound"; ancestor: bigint; orphaned: number }
  | { kind: "retry"; reason: string };

export interface RailObserverDeps {
  rail: RailConfig;
  reader: ChainReader;
  store: ObservationRepository;
  watched: WatchedSet;
  logger: Logger;
  now?: () => Date;
}

/** Most block headers asked for at once. */
const HEADER_CONCURRENCY = 8;

async function inBatches<T, R>(items: readonly T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(run))));
  return out;
}

/**
 * One rail's observation, one pass at a time: read the blocks after the
 * cursor (bounded range), match Transfer logs of the configured tokens to
 * watched addresses, keep the headers of blocks not yet settled, record it all
 * with the cursor; then settle what the chain has settled. A stored block that
 * is no longer canonical means a reorganisation: walk back to the common
 * ancestor and orphan what lay above it. The caller holds the rail's lease and
 * calls `pass` every poll interval.
 */
export class RailObserver {
  private readonly now: () => Date;
  private readonly contracts: Address[];
  /** The chain's genesis hash, read once: a cursor kept for another chain under the same id starts again. */
  private genesis: `0x${string}` | undefined;

  constructor(private readonly deps: RailObserverDeps) {
    this.now = deps.now ?? (() => new Date());
    this.contracts = [deps.rail.token, ...deps.rail.otherTokens].map((t) => t.contract);
  }

  async pass(): Promise<PassOutcome> {
    const { rail, reader, store } = this.deps;
    const head = await reader.headNumber();
    const finalized = await reader.finalized();
    const settled = settledNumber(head, finalized?.number ?? null, rail.confirmations);
    this.genesis ??= (await reader.block(0n)).hash;
    const cursor = await store.cursor(rail.rail, { chainId: rail.chainId, genesisHash: this.genesis }, head, this.now());
    if (cursor.restarted) this.deps.logger.warn({ rail: rail.rail }, "the rail's chain has another genesis block than the one observed before: observing it afresh from its head");
    const stored = await store.storedBlocks(rail.chainId);
    const storedByNumber = new Map(stored.map((b) => [b.number, b]));
    let next = cursor.nextBlock;
    let outcome: PassOutcome;

    // The last block read must still be canonical; then so is every block linked below it.
    const tip = storedByNumber.get(next - 1n);
    if (tip && (await reader.block(tip.number)).hash !== tip.hash) return this.rewind(next, stored);

    const range = nextRange(next, head, rail.maxBlockRange);
    if (range) {
      const logs = await reader.transferLogs(this.contracts, range.from, range.to);
      // After the logs: an address allocated before any block they cover was mined is in the set.
      await this.deps.watched.refresh(this.now());
      const watched = this.deps.watched.addresses;
      const matched = logs.filter((log) => watched.has(log.to));
      const numbers = new Set<bigint>([range.to, ...matched.map((log) => log.blockNumber)]);
      // Blocks not yet settled are all kept, to tell a reorganisation; settled ones only where a transfer needs its time.
      const firstUnsettled = settled === null ? range.from : settled + 1n;
      for (let n = firstUnsettled > range.from ? firstUnsettled : range.from; n <= range.to; n++) numbers.add(n);
      const headers = await inBatches([...numbers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), HEADER_CONCURRENCY, (n) => reader.block(n));
      const check = checkLinks(storedByNumber.get(range.from - 1n), headers, matched.map(logBlock));
      if (check.kind === "reorganised") return this.rewind(next, stored);
      if (check.kind === "moving") return { kind: "retry", reason: check.reason };
      const byNumber = new Map<bigint, FetchedHeader>(headers.map((h) => [h.number, h]));
      const transfers = matchTransfers(rail, matched, watched, (n) => byNumber.get(n)!.timestamp);
      const keep = headers.filter((h) => settled === null || h.number > settled || h.number === range.to);
      await store.recordRead({ rail: rail.rail, chainId: rail.chainId, from: range.from, to: range.to, keep, transfers, now: this.now() });
      for (const h of keep) storedByNumber.set(h.number, h);
      next = range.to + 1n;
      outcome = { kind: "read", from: range.from, to: range.to, transfers: transfers.length, settledUpTo: null };
    } else {
      await store.touch(rail.rail, next, this.now());
      outcome = { kind: "caught-up", settledUpTo: null };
    }

    // Settle up to the settled block, but never past what was read (and linked to the verified tip).
    if (settled === null) return outcome;
    const upTo = settled < next - 1n ? settled : next - 1n;
    if (upTo < 0n) return outcome;
    await store.settle({ rail: rail.rail, chainId: rail.chainId, expectedNext: next, upTo, now: this.now() });
    return { ...outcome, settledUpTo: upTo };
  }

  private async rewind(next: bigint, storedDescending: readonly BlockRef[]): Promise<PassOutcome> {
    const { rail, reader, store, logger } = this.deps;
    let ancestor = await commonAncestor(storedDescending, async (n) => (await reader.block(n)).hash);
    if (ancestor === null) {
      // Deeper than every kept block: read again from below the lowest one.
      const lowest = storedDescending.at(-1)?.number ?? next;
      ancestor = lowest > 0n ? lowest - 1n : 0n;
      logger.error({ rail: rail.rail, ancestor: ancestor.toString() }, "reorganisation deeper than the blocks kept; reading again from below them");
    }
    const { orphaned } = await store.rewind({ rail: rail.rail, chainId: rail.chainId, expectedNext: next, ancestor, now: this.now() });
    logger.warn({ rail: rail.rail, ancestor: ancestor.toString(), orphaned }, "chain reorganised: transfers above the common ancestor orphaned");
    return { kind: "rewound", ancestor, orphaned };
  }
}

function logBlock(log: TransferLog): BlockRef {
  return { number: log.blockNumber, hash: log.blockHash };
}
