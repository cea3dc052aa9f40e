import { describe, expect, it } from "vitest";
import { DomainError } from "@payin/errors";
import { MerchantsReason } from "./reasons.js";
import { ConcurrentVersionWrite, nextVersion, withVersionRetry } from "./versioning.js";

const unchanged = () => new DomainError(MerchantsReason.RuleUnchanged, "unchanged");
const t = (ms: number) => new Date(ms);

describe("nextVersion", () => {
  it("starts at version 1 now", () => {
    expect(nextVersion(null, "allow", t(1000), unchanged)).toEqual({ version: 1, validFrom: t(1000) });
  });

  it("follows the open version and refuses the same effect", () => {
    const open = { effect: "allow" as const, version: 3, validFrom: t(1000), validTo: null };
    expect(nextVersion(open, "deny", t(2000), unchanged)).toEqual({ version: 4, validFrom: t(2000) });
    expect(() => nextVersion(open, "allow", t(2000), unchanged)).toThrow(DomainError);
  });

  it("never starts before the open version when clocks disagree", () => {
    const open = { effect: "allow" as const, version: 1, validFrom: t(5000), validTo: null };
    expect(nextVersion(open, "deny", t(4000), unchanged)).toEqual({ version: 2, validFrom: t(5000) });
  });
});

describe("withVersionRetry", () => {
  it("runs once more after a lost race, then gives up with CONCURRENT_CHANGE", async () => {
    let runs = 0;
    await expect(
      withVersionRetry(async () => {
        runs++;
        if (runs === 1) throw new ConcurrentVersionWrite();
        return "ok";
      }),
    ).resolves.toBe("ok");
    expect(runs).toBe(2);
    runs = 0;
    const always = withVersionRetry(async () => {
      runs++;
      throw new ConcurrentVersionWrite();
    });
    await expect(always).rejects.toMatchObject({ reason: MerchantsReason.ConcurrentChange });
    expect(runs).toBe(2);
  });

  it("does not retry other errors", async () => {
    let runs = 0;
    await expect(
      withVersionRetry(async () => {
        runs++;
        throw unchanged();
      }),
    ).rejects.toMatchObject({ reason: MerchantsReason.RuleUnchanged });
    expect(runs).toBe(1);
  });
});
