import { describe, expect, it } from "vitest";
import {
  checkLinks,
  commonAncestor,
  KEPT_BELOW_SETTLED,
  keptFloor,
  nextRange,
  settledNumber,
  splitByHash,
  uniqueLogs,
  type BlockRef,
  type FetchedHeader,
} from "./chain-view.js";

/** A hash of its own for each block number and branch. */
function hash(number: bigint, branch = "a"): `0x${string}` {
  return `0x${branch}${number.toString(16).padStart(63, "0")}`;
}

function ref(number: bigint, branch = "a"): BlockRef {
  return { number, hash: hash(number, branch) };
}

/** A header of `branch` whose parent is the block below on `parentBranch`. */
function header(number: bigint, branch = "a", parentBranch = branch): FetchedHeader {
  return { number, hash: hash(number, branch), parentHash: hash(number - 1n, parentBranch), timestamp: 1_700_000_000n + number };
}

describe("nextRange", () => {
  it("answers nothing when the cursor is past the head", () => {
    expect(nextRange(11n, 10n, 100)).toBeNull();
  });

  it("reads the head itself when the cursor is on it", () => {
    expect(nextRange(10n, 10n, 100)).toEqual({ from: 10n, to: 10n });
  });

  it("spans exactly maxRange blocks when the head is farther", () => {
    expect(nextRange(100n, 1_000n, 50)).toEqual({ from: 100n, to: 149n });
    expect(nextRange(100n, 1_000n, 1)).toEqual({ from: 100n, to: 100n });
  });

  it("spans exactly maxRange blocks when the head is the last of them", () => {
    expect(nextRange(100n, 149n, 50)).toEqual({ from: 100n, to: 149n });
  });

  it("stops at the head when it is closer than maxRange", () => {
    expect(nextRange(100n, 120n, 50)).toEqual({ from: 100n, to: 120n });
    expect(nextRange(0n, 148n, 150)).toEqual({ from: 0n, to: 148n });
  });

  it("refuses a maxRange below 1", () => {
    expect(() => nextRange(0n, 10n, 0)).toThrow(RangeError);
    expect(() => nextRange(0n, 10n, 0)).toThrow("maxRange must be at least 1");
    expect(() => nextRange(11n, 10n, -1)).toThrow(RangeError);
  });
});

describe("settledNumber", () => {
  it("never settles early on an endpoint whose finalized block is its head: head − confirmations still holds", () => {
    expect(settledNumber(100n, 100n, 15)).toBe(85n);
    expect(settledNumber(100n, 99n, 15)).toBe(85n);
    expect(settledNumber(100n, 86n, 15)).toBe(85n);
  });

  it("never settles past head − confirmations on a finalized block above the head", () => {
    expect(settledNumber(100n, 101n, 15)).toBe(85n);
    expect(settledNumber(100n, 1_000n, 0)).toBe(100n);
  });

  it("takes the finalized block where it is lower than head − confirmations", () => {
    expect(settledNumber(100n, 84n, 15)).toBe(84n);
    expect(settledNumber(100n, 60n, 15)).toBe(60n);
    expect(settledNumber(100n, 0n, 15)).toBe(0n);
    expect(settledNumber(100n, 99n, 0)).toBe(99n);
  });

  it("answers head − confirmations when the finalized block is exactly there", () => {
    expect(settledNumber(100n, 85n, 15)).toBe(85n);
  });

  it("counts head − confirmations where no finalized block is served", () => {
    expect(settledNumber(100n, null, 15)).toBe(85n);
    expect(settledNumber(15n, null, 15)).toBe(0n);
  });

  it("answers null while the chain is shorter than the confirmations, whatever the finalized block", () => {
    expect(settledNumber(14n, null, 15)).toBeNull();
    expect(settledNumber(0n, null, 1)).toBeNull();
    expect(settledNumber(14n, 10n, 15)).toBeNull();
    expect(settledNumber(14n, 0n, 15)).toBeNull();
  });

  it("settles block 0 once the chain is exactly as long as the confirmations", () => {
    expect(settledNumber(15n, 15n, 15)).toBe(0n);
    expect(settledNumber(15n, 0n, 15)).toBe(0n);
  });

  it("settles the head itself with no confirmations and no lower finalized block", () => {
    expect(settledNumber(100n, null, 0)).toBe(100n);
    expect(settledNumber(100n, 100n, 0)).toBe(100n);
    expect(settledNumber(0n, null, 0)).toBe(0n);
  });
});

describe("keptFloor", () => {
  it("keeps headers KEPT_BELOW_SETTLED blocks below the settled point", () => {
    expect(KEPT_BELOW_SETTLED).toBe(128n);
    expect(keptFloor(1_000n)).toBe(872n);
    expect(keptFloor(129n)).toBe(1n);
  });

  it("keeps more than the deepest confirmations a public chain needs below the settled point", () => {
    // BSC 15 and Ethereum 12 confirmations: a reorganisation of settled blocks still finds its ancestor.
    expect(KEPT_BELOW_SETTLED > 15n).toBe(true);
  });

  it("never answers below block 0", () => {
    expect(keptFloor(128n)).toBe(0n);
    expect(keptFloor(127n)).toBe(0n);
    expect(keptFloor(0n)).toBe(0n);
  });
});

describe("splitByHash", () => {
  const range = { from: 100n, to: 199n };

  it("reads everything by range when the settled point less the margin is at or above the end of the range", () => {
    expect(splitByHash(range, 231n, 32)).toEqual({ rangeTo: 199n, byHashFrom: null });
    expect(splitByHash(range, 1_000n, 32)).toEqual({ rangeTo: 199n, byHashFrom: null });
  });

  it("reads only the last block by hash when the settled point less the margin is just below it", () => {
    expect(splitByHash(range, 230n, 32)).toEqual({ rangeTo: 198n, byHashFrom: 199n });
  });

  it("reads by range up to the settled point less the margin, by hash above it", () => {
    expect(splitByHash(range, 182n, 32)).toEqual({ rangeTo: 150n, byHashFrom: 151n });
  });

  it("reads only the first block by range when the settled point less the margin is on it", () => {
    expect(splitByHash(range, 132n, 32)).toEqual({ rangeTo: 100n, byHashFrom: 101n });
  });

  it("reads everything by hash when the settled point less the margin is below the range", () => {
    expect(splitByHash(range, 131n, 32)).toEqual({ rangeTo: null, byHashFrom: 100n });
    expect(splitByHash(range, 50n, 32)).toEqual({ rangeTo: null, byHashFrom: 100n });
    expect(splitByHash(range, 0n, 32)).toEqual({ rangeTo: null, byHashFrom: 100n });
  });

  it("reads everything by hash when nothing is settled yet", () => {
    expect(splitByHash(range, null, 32)).toEqual({ rangeTo: null, byHashFrom: 100n });
    expect(splitByHash({ from: 0n, to: 0n }, null, 0)).toEqual({ rangeTo: null, byHashFrom: 0n });
  });

  it("with no margin, reads the settled block itself by range and the blocks above it by hash", () => {
    expect(splitByHash(range, 150n, 0)).toEqual({ rangeTo: 150n, byHashFrom: 151n });
    expect(splitByHash(range, 199n, 0)).toEqual({ rangeTo: 199n, byHashFrom: null });
    expect(splitByHash(range, 99n, 0)).toEqual({ rangeTo: null, byHashFrom: 100n });
  });

  it("splits a one-block range into one way or the other, never both", () => {
    const one = { from: 7n, to: 7n };
    expect(splitByHash(one, 7n, 0)).toEqual({ rangeTo: 7n, byHashFrom: null });
    expect(splitByHash(one, 6n, 0)).toEqual({ rangeTo: null, byHashFrom: 7n });
    expect(splitByHash(one, 39n, 32)).toEqual({ rangeTo: 7n, byHashFrom: null });
    expect(splitByHash(one, 38n, 32)).toEqual({ rangeTo: null, byHashFrom: 7n });
  });

  it("leaves no block unread and none read twice", () => {
    for (let settled = 90n; settled <= 240n; settled++) {
      const { rangeTo, byHashFrom } = splitByHash(range, settled, 32);
      const byRange = rangeTo === null ? 0n : rangeTo - range.from + 1n;
      const byHash = byHashFrom === null ? 0n : range.to - byHashFrom + 1n;
      expect(byRange + byHash).toBe(100n);
      if (rangeTo !== null && byHashFrom !== null) expect(byHashFrom).toBe(rangeTo + 1n);
    }
  });
});

describe("uniqueLogs", () => {
  interface Log {
    txHash: string;
    logIndex: number;
    blockHash: string;
    amount: bigint;
  }
  const tx = (n: number, branch = "a") => `0x${branch}${n.toString(16).padStart(63, "0")}`;
  function log(txHash: string, logIndex: number, amount = 1n, blockHash = hash(10n)): Log {
    return { txHash, logIndex, blockHash, amount };
  }
  const sameLog = (a: Log, b: Log) => a.blockHash.toLowerCase() === b.blockHash.toLowerCase() && a.amount === b.amount;

  it("keeps an answer without repeats as it is, in its order", () => {
    const logs = [log(tx(2), 0), log(tx(1), 1), log(tx(1), 0)];
    expect(uniqueLogs(logs, sameLog)).toEqual(logs);
    expect(uniqueLogs([], sameLog)).toEqual([]);
  });

  it("keeps a log listed twice once, at its first place", () => {
    const first = log(tx(1), 3);
    const logs = [first, log(tx(2), 0), log(tx(1), 3), log(tx(2), 0), log(tx(1), 3)];
    const unique = uniqueLogs(logs, sameLog);
    expect(unique).toEqual([log(tx(1), 3), log(tx(2), 0)]);
    expect(unique![0]).toBe(first);
  });

  it("takes transaction hashes in any case as the same", () => {
    const lower = log(tx(0xab), 1);
    const upper = log(lower.txHash.toUpperCase().replace("0X", "0x"), 1);
    expect(uniqueLogs([lower, upper], sameLog)).toEqual([lower]);
  });

  it("keeps the logs of one transaction at different indices, and of different transactions at one index", () => {
    const logs = [log(tx(1), 0), log(tx(1), 1), log(tx(2), 0)];
    expect(uniqueLogs(logs, sameLog)).toHaveLength(3);
  });

  it("does not confuse a transaction hash ending in a digit with the index", () => {
    // "0x…1" with index 12 and "0x…11" with index 2 must not collide.
    const logs = [log("0xab1", 12), log("0xab11", 2)];
    expect(uniqueLogs(logs, sameLog)).toEqual(logs);
  });

  it("refuses the whole answer when two different logs share a transaction and index", () => {
    expect(uniqueLogs([log(tx(1), 0, 1n), log(tx(2), 0), log(tx(1), 0, 2n)], sameLog)).toBeNull();
    expect(uniqueLogs([log(tx(1), 0, 1n, hash(10n)), log(tx(1), 0, 1n, hash(10n, "b"))], sameLog)).toBeNull();
  });

  it("asks the predicate with the log kept first and the repeat second", () => {
    const asked: [Log, Log][] = [];
    const first = log(tx(1), 0, 1n);
    const second = log(tx(1), 0, 2n);
    expect(
      uniqueLogs([first, second], (a, b) => {
        asked.push([a, b]);
        return true;
      }),
    ).toEqual([first]);
    expect(asked).toEqual([[first, second]]);
  });

  it("does not ask the predicate of logs that do not repeat", () => {
    let asked = 0;
    uniqueLogs([log(tx(1), 0), log(tx(2), 0), log(tx(1), 1)], () => {
      asked++;
      return false;
    });
    expect(asked).toBe(0);
  });
});

describe("checkLinks", () => {
  it("answers linked when the read extends the stored block below and its logs are of the headers read", () => {
    const headers = [header(11n), header(12n), header(13n)];
    expect(checkLinks(ref(10n), headers, [ref(11n), ref(13n), ref(13n)])).toEqual({ kind: "linked" });
  });

  it("answers linked with nothing stored below, whatever the first header's parent", () => {
    expect(checkLinks(undefined, [header(11n, "a", "b"), header(12n)], [])).toEqual({ kind: "linked" });
  });

  it("answers linked for an empty read", () => {
    expect(checkLinks(ref(10n), [], [])).toEqual({ kind: "linked" });
  });

  it("answers reorganised when the first header's parent is not the stored block below", () => {
    expect(checkLinks(ref(10n), [header(11n, "b", "b"), header(12n, "b")], [])).toEqual({ kind: "reorganised" });
    expect(checkLinks(ref(10n), [header(11n, "b", "b")], [ref(11n, "b")])).toEqual({ kind: "reorganised" });
  });

  it("does not compare the first header with a stored block that is not directly below it", () => {
    // Block 12 is the first read (11 had no transfer and was settled): its parent is 11, not the stored 10.
    expect(checkLinks(ref(10n), [header(12n, "a", "b")], [])).toEqual({ kind: "linked" });
  });

  it("answers moving when consecutive headers do not link", () => {
    const check = checkLinks(ref(10n), [header(11n), header(12n, "b", "b"), header(13n, "b")], []);
    expect(check).toEqual({ kind: "moving", reason: "block 12 does not follow the block 11 read with it" });
  });

  it("answers moving rather than reorganised when the read itself does not link", () => {
    const check = checkLinks(ref(10n), [header(11n, "b", "b"), header(12n, "c", "c")], []);
    expect(check.kind).toBe("moving");
  });

  it("answers moving when a log's block hash differs from its header's", () => {
    const check = checkLinks(ref(10n), [header(11n), header(12n)], [ref(11n), ref(12n, "b")]);
    expect(check).toEqual({ kind: "moving", reason: "a log of block 12 is of another branch than its header" });
  });

  it("allows gaps between headers: only consecutive numbers must link", () => {
    const headers = [header(11n), header(15n, "b", "b"), header(40n, "c", "c"), header(41n, "c")];
    expect(checkLinks(ref(10n), headers, [ref(15n, "b"), ref(41n, "c")])).toEqual({ kind: "linked" });
  });

  it("refuses headers out of ascending order, or twice the same block", () => {
    expect(() => checkLinks(ref(10n), [header(12n), header(11n)], [])).toThrow(RangeError);
    expect(() => checkLinks(ref(10n), [header(12n), header(11n)], [])).toThrow("headers must be in ascending order of number");
    expect(() => checkLinks(ref(10n), [header(11n), header(11n)], [])).toThrow("headers must be in ascending order of number");
    expect(() => checkLinks(undefined, [header(11n), header(13n), header(12n)], [])).toThrow(RangeError);
  });

  it("refuses a log of a block whose header was not read", () => {
    expect(() => checkLinks(ref(10n), [header(11n), header(13n)], [ref(12n)])).toThrow(RangeError);
    expect(() => checkLinks(ref(10n), [header(11n), header(13n)], [ref(12n)])).toThrow("no header read for block 12, which has a log");
  });
});

describe("commonAncestor", () => {
  /** A chain answering its hash at each number; counts the questions. */
  function chain(canonical: readonly BlockRef[]) {
    const asked: bigint[] = [];
    const byNumber = new Map(canonical.map((b) => [b.number, b.hash]));
    const canonicalHash = async (number: bigint): Promise<string | null> => {
      asked.push(number);
      return byNumber.get(number) ?? null;
    };
    return { asked, canonicalHash };
  }

  it("answers the highest stored block that is still canonical, and stops asking there", async () => {
    const stored = [ref(14n), ref(13n), ref(12n), ref(11n), ref(10n)];
    const { asked, canonicalHash } = chain([ref(10n), ref(11n), ref(12n), ref(13n, "b"), ref(14n, "b")]);
    await expect(commonAncestor(stored, canonicalHash)).resolves.toBe(12n);
    expect(asked).toEqual([14n, 13n, 12n]);
  });

  it("answers the top block when it is still canonical, asking once", async () => {
    const { asked, canonicalHash } = chain([ref(12n), ref(13n)]);
    await expect(commonAncestor([ref(13n), ref(12n)], canonicalHash)).resolves.toBe(13n);
    expect(asked).toEqual([13n]);
  });

  it("answers null when no stored block is canonical any more, having asked of each", async () => {
    const { asked, canonicalHash } = chain([ref(10n, "b"), ref(11n, "b"), ref(12n, "b")]);
    await expect(commonAncestor([ref(12n), ref(11n), ref(10n)], canonicalHash)).resolves.toBeNull();
    expect(asked).toEqual([12n, 11n, 10n]);
  });

  it("answers null with nothing stored, asking nothing", async () => {
    const { asked, canonicalHash } = chain([ref(1n)]);
    await expect(commonAncestor([], canonicalHash)).resolves.toBeNull();
    expect(asked).toEqual([]);
  });

  it("does not take a block the chain does not have for canonical", async () => {
    const { canonicalHash } = chain([]);
    await expect(commonAncestor([ref(5n)], canonicalHash)).resolves.toBeNull();
  });

  it("allows gaps between the stored blocks", async () => {
    const { asked, canonicalHash } = chain([ref(3n), ref(20n, "b")]);
    await expect(commonAncestor([ref(20n), ref(7n), ref(3n)], canonicalHash)).resolves.toBe(3n);
    expect(asked).toEqual([20n, 7n, 3n]);
  });

  it("refuses stored blocks out of descending order, or twice the same block", async () => {
    const { canonicalHash } = chain([]);
    await expect(commonAncestor([ref(10n), ref(11n)], canonicalHash)).rejects.toThrow(RangeError);
    await expect(commonAncestor([ref(10n), ref(11n)], canonicalHash)).rejects.toThrow("stored blocks must be in descending order of number");
    await expect(commonAncestor([ref(12n), ref(10n), ref(10n)], canonicalHash)).rejects.toThrow("stored blocks must be in descending order of number");
  });
});
