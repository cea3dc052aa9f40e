/**
 * How the observer reads a chain, decided without I/O: which blocks to read
 * next, where settlement stands, whether what it read still links to what it
 * stored, and where a reorganisation began.
 */

/** A block as the observer keeps it: enough to tell whether it is still canonical. */
export interface BlockRef {
  number: bigint;
  hash: `0x${string}`;
}

export interface FetchedHeader extends BlockRef {
  parentHash: `0x${string}`;
  timestamp: bigint;
}

/** The next blocks to read: from the cursor, at most `maxRange` of them, never past the head. */
export function nextRange(cursor: bigint, head: bigint, maxRange: number): { from: bigint; to: bigint } | null {
  if (maxRange < 1) throw new RangeError("maxRange must be at least 1");
  if (cursor > head) return null;
  const last = cursor + BigInt(maxRange) - 1n;
  return { from: cursor, to: last < head ? last : head };
}

/**
 * The highest block counted as settled: the lower of the chain's `finalized`
 * block (where the endpoint serves one) and head − confirmations, so that
 * settlement never rests on one tag (an endpoint whose `finalized` is its
 * head settles nothing early); null while the chain is shorter than the
 * confirmations.
 */
export function settledNumber(head: bigint, finalized: bigint | null, confirmations: number): bigint | null {
  const deep = head - BigInt(confirmations);
  if (deep < 0n) return null;
  return finalized !== null && finalized < deep ? finalized : deep;
}

/**
 * Blocks kept below the settled point, so that the common ancestor of even a
 * reorganisation of settled blocks is found among the kept hashes.
 */
export const KEPT_BELOW_SETTLED = 128n;

/** The lowest block whose header is kept once blocks up to `settledThrough` are settled. */
export function keptFloor(settledThrough: bigint): bigint {
  const floor = settledThrough - KEPT_BELOW_SETTLED;
  return floor > 0n ? floor : 0n;
}

/**
 * Where a rail's logs are read from: by range up to `rangeTo` (blocks every
 * backend of an endpoint has long had), block by block (by hash) above it, so
 * that a backend that has not seen a block yet answers an error rather than
 * leaving its logs out. The blocks above the settled point less a margin of
 * `lagMargin` are read by hash.
 */
export function splitByHash(range: { from: bigint; to: bigint }, settled: bigint | null, lagMargin: number): { rangeTo: bigint | null; byHashFrom: bigint | null } {
  const safe = settled === null ? range.from - 1n : settled - BigInt(lagMargin);
  const rangeTo = safe < range.to ? safe : range.to;
  return {
    rangeTo: rangeTo >= range.from ? rangeTo : null,
    byHashFrom: rangeTo < range.to ? (rangeTo >= range.from ? rangeTo + 1n : range.from) : null,
  };
}

/** A log's place on its chain: unique per (tx hash, log index). */
export interface LogKey {
  txHash: string;
  logIndex: number;
  blockHash: string;
}

/**
 * An endpoint's answer without repeats: a log listed twice (some providers
 * do) is kept once; two different logs under one (tx hash, log index) are of
 * two branches, and the answer is not used (null).
 */
export function uniqueLogs<T extends LogKey>(logs: readonly T[], same: (a: T, b: T) => boolean): T[] | null {
  const byKey = new Map<string, T>();
  for (const log of logs) {
    const key = `${log.txHash.toLowerCase()}:${log.logIndex}`;
    const seen = byKey.get(key);
    if (seen === undefined) byKey.set(key, log);
    else if (!same(seen, log)) return null;
  }
  return [...byKey.values()];
}

export type LinkCheck =
  /** The read extends what is stored. */
  | { kind: "linked" }
  /** The stored block below the read is no longer canonical: walk back. */
  | { kind: "reorganised" }
  /** The chain changed while it was read (headers or logs of two branches): read again. */
  | { kind: "moving"; reason: string };

/**
 * Checks a read against what is stored: the first header's parent must be the
 * stored block below it, each header the parent of the next one of consecutive
 * numbers, and each log's block hash the hash of the header read for its block.
 * `headers` ascending, possibly with gaps (settled blocks without transfers are
 * not read).
 */
export function checkLinks(below: BlockRef | undefined, headers: readonly FetchedHeader[], logBlocks: readonly BlockRef[]): LinkCheck {
  const byNumber = new Map<bigint, FetchedHeader>();
  let previous: FetchedHeader | undefined;
  for (const header of headers) {
    if (previous && header.number <= previous.number) throw new RangeError("headers must be in ascending order of number");
    if (previous && header.number === previous.number + 1n && header.parentHash !== previous.hash) {
      return { kind: "moving", reason: `block ${header.number} does not follow the block ${previous.number} read with it` };
    }
    byNumber.set(header.number, header);
    previous = header;
  }
  const first = headers[0];
  if (below && first && first.number === below.number + 1n && first.parentHash !== below.hash) return { kind: "reorganised" };
  for (const log of logBlocks) {
    const header = byNumber.get(log.number);
    if (!header) throw new RangeError(`no header read for block ${log.number}, which has a log`);
    if (header.hash !== log.hash) return { kind: "moving", reason: `a log of block ${log.number} is of another branch than its header` };
  }
  return { kind: "linked" };
}

/**
 * The common ancestor after a reorganisation: the highest stored block that is
 * still canonical (`canonicalHash` answers the chain's hash at a number), asked
 * from the top down. Null when no stored block is canonical any more: the
 * reorganisation is deeper than what is kept.
 */
export async function commonAncestor(storedDescending: readonly BlockRef[], canonicalHash: (number: bigint) => Promise<string | null>): Promise<bigint | null> {
  let previous: bigint | undefined;
  for (const block of storedDescending) {
    if (previous !== undefined && block.number >= previous) throw new RangeError("stored blocks must be in descending order of number");
    previous = block.number;
    if ((await canonicalHash(block.number)) === block.hash) return block.number;
  }
  return null;
}
