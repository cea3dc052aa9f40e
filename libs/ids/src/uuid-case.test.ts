import { describe, expect, it } from "vitest";
import { isUuid, isUuidAnyCase } from "./index.js";

describe("isUuid and isUuidAnyCase", () => {
  const lower = "0190a0b1-2c3d-7e4f-8a5b-6c7d8e9f0a1b";
  const upper = lower.toUpperCase();

  it("differ only in letter case: services take the canonical lower case, an HTTP edge any case", () => {
    expect([isUuid(lower), isUuidAnyCase(lower)]).toEqual([true, true]);
    expect([isUuid(upper), isUuidAnyCase(upper)]).toEqual([false, true]);
    for (const bad of ["", "not-a-uuid", `${lower}0`, lower.replaceAll("-", "")]) {
      expect([isUuid(bad), isUuidAnyCase(bad)]).toEqual([false, false]);
    }
    expect(isUuidAnyCase(undefined)).toBe(false);
    expect(isUuidAnyCase(null)).toBe(false);
  });
});
