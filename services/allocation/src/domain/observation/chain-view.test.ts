import { describe, expect, it } from "vitest";
import { checkLinks, commonAncestor, nextRange, settledNumber, type BlockRef, type FetchedHeader } from "./chain-view.js";

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
  it("takes the finalized block where the endpoint serves one, whatever the confirmations", () => {
    expect(settledNumber(100n, 90n, 15)).toBe(90n);
    expect(settledNumber(100n, 98n, 15)).toBe(98n);
    expect(settledNumber(5n, 0n, 15)).toBe(0n);
  });

  it("clamps a finalized block above the head to the head", () => {
    expect(settledNumber(100n, 101n, 15)).toBe(100n);
    expect(settledNumber(100n, 100n, 15)).toBe(100n);
  });

  it("counts head − confirmations where no finalized block is served", () => {
    expect(settledNumber(100n, null, 15)).toBe(85n);
    expect(settledNumber(15n, null, 15)).toBe(0n);
  });

  it("answers null while the chain is shorter than the confirmations", () => {
    expect(settledNumber(14n, null, 15)).toBeNull();
    expect(settledNumber(0n, null, 1)).toBeNull();
  });

  it("settles the head itself with no confirmations", () => {
    expect(settledNumber(100n, null, 0)).toBe(100n);
    expect(settledNumber(0n, null, 0)).toBe(0n);
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
