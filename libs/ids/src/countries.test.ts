import { describe, expect, it } from "vitest";
import { isCountryCode } from "./countries.js";

describe("isCountryCode", () => {
  const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  const everyPair = [...LETTERS].flatMap((a) => [...LETTERS].map((b) => a + b));

  it("accepts exactly the 249 officially assigned ISO 3166-1 alpha-2 codes", () => {
    expect(everyPair.filter(isCountryCode)).toHaveLength(249);
  });

  // At least one code from each line of the table, its first and last included.
  it.each(["AD", "BZ", "CA", "FR", "GA", "JO", "JP", "MR", "MS", "RO", "RS", "TV", "TW", "ZW", "DE", "US", "GB", "CN", "BR", "SS", "XK"])(
    "knows %s",
    (code) => {
      // XK (Kosovo) is user-assigned, not an official code.
      expect(isCountryCode(code)).toBe(code !== "XK");
    },
  );

  it.each([
    ["user-assigned", ["AA", "QM", "QZ", "XA", "XX", "ZZ"]],
    ["exceptionally reserved", ["UK", "EU", "EZ", "UN", "AC", "TA"]],
    ["transitionally reserved, no longer countries", ["AN", "CS", "YU", "TP", "ZR", "BU"]],
  ])("refuses %s codes", (_name, codes) => {
    for (const code of codes) expect(isCountryCode(code)).toBe(false);
  });

  it.each(["de", "De", "DEU", " DE", "DE ", "D", "", "D1", "ÄD"])("refuses %j, which is not two upper-case letters", (value) => {
    expect(isCountryCode(value)).toBe(false);
  });
});
