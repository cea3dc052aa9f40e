import { describe, expect, it } from "vitest";
import { EMAIL_MAX_LENGTH, isEmailAddress } from "./index.js";

describe("isEmailAddress", () => {
  it("accepts dot-atom addresses with a dotted domain, in any letter case", () => {
    for (const email of ["a@x.io", "Ada.Lovelace@Example.COM", "a.b.c@x.io", "o'brien+tag@mail.example.co.uk", "x_y-z!#$%&*/=?^`{|}~@a-b.c0", "1@2.3"]) {
      expect(isEmailAddress(email), email).toBe(true);
    }
  });

  it("refuses a local part with a leading, trailing or doubled dot (no JSON Schema `format: email` takes them)", () => {
    for (const email of [".a@x.io", "a.@x.io", "a..b@x.io", ".@x.io", "..@x.io", "a...b@x.io"]) {
      expect(isEmailAddress(email), email).toBe(false);
    }
  });

  it("refuses other shapes: no domain dot, empty parts, bad labels, spaces, quotes, two @", () => {
    for (const email of ["a@x", "@x.io", "a@", "a@.x.io", "a@x..io", "a@-x.io", "a@x-.io", "a@x.io.", "a b@x.io", '"a"@x.io', "a@b@x.io", "a@x_y.io", ""]) {
      expect(isEmailAddress(email), email).toBe(false);
    }
  });

  it("keeps the lengths: a local part of at most 64, labels of at most 63, at most 254 in all", () => {
    expect(isEmailAddress(`${"a".repeat(64)}@x.io`)).toBe(true);
    expect(isEmailAddress(`${"a".repeat(65)}@x.io`)).toBe(false);
    expect(isEmailAddress(`a@${"b".repeat(63)}.io`)).toBe(true);
    expect(isEmailAddress(`a@${"b".repeat(64)}.io`)).toBe(false);
    const long = `aaaa@${Array.from({ length: 4 }, () => "c".repeat(61)).join(".")}.io`;
    expect(long.length).toBe(EMAIL_MAX_LENGTH + 1);
    expect(isEmailAddress(long)).toBe(false);
    expect(isEmailAddress(long.slice(0, 5) + long.slice(6))).toBe(true);
  });
});
