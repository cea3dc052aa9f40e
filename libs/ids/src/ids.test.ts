import { describe, expect, it } from "vitest";
import { isUuid, uuidv7 } from "./index.js";

describe("uuidv7", () => {
  it("is a canonical version 7, RFC 9562 variant uuid whose first 48 bits are the time in ms", () => {
    const before = Date.now();
    const id = uuidv7();
    const after = Date.now();
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe("7");
    expect(["8", "9", "a", "b"]).toContain(id[19]);
    const ms = parseInt(id.replaceAll("-", "").slice(0, 12), 16);
    // The counter may borrow a millisecond when it wraps; never more than a few.
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after + 5);
  });

  it("orders ids of one process by creation, within a millisecond too, and never repeats one (100,000 in a row)", () => {
    const ids = Array.from({ length: 100_000 }, () => uuidv7());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it("keeps 62 random bits per id: ids of one millisecond differ beyond the counter", () => {
    const ids = Array.from({ length: 1_000 }, () => uuidv7());
    const randomParts = new Set(ids.map((id) => id.replaceAll("-", "").slice(17)));
    expect(randomParts.size).toBe(ids.length);
  });
});
