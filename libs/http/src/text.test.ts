import { describe, expect, it } from "vitest";
import { displayTextProblem, idempotencyKeyProblem, MAX_IDEMPOTENCY_KEY_LENGTH } from "./text.js";

describe("displayTextProblem", () => {
  it("refuses every bidirectional embedding, override and isolate control", () => {
    const controls = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
    for (const code of controls) {
      const name = `Acme ${String.fromCodePoint(code)}Shop`;
      expect(displayTextProblem(name), code.toString(16)).toMatch(/bidirectional control characters/);
    }
  });

  it("refuses every zero-width character", () => {
    for (const code of [0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x2060, 0xfeff]) {
      const text = `Order ${String.fromCodePoint(code)}42`;
      expect(displayTextProblem(text), code.toString(16)).toBe("must not contain zero-width characters (U+200B to U+200F, U+2060, U+FEFF)");
    }
    // A bidirectional control is named first when a text holds both.
    expect(displayTextProblem("a\u200Bb\u202Ec")).toMatch(/bidirectional control characters/);
  });

  it("accepts names in any script, and the neighbours of the refused ranges", () => {
    for (const name of ["Acme GmbH", "شركة أكمي", "株式会社アクメ", "Ünïcödé & Co.", "a\u2029b", "a\u2065b", "a\u206Ab", "a\u2029b", "a\u202Fb", "a\u200Ab", "a\u2010b", "a\u205Fb", "a\u2061b", "a\uFEFEb", "a\uFF00b"]) {
      expect(displayTextProblem(name), name).toBeNull();
    }
  });
});

describe("idempotencyKeyProblem", () => {
  it("takes 1 to 64 characters, counted as a client counts them, and nothing PostgreSQL cannot store", () => {
    expect(MAX_IDEMPOTENCY_KEY_LENGTH).toBe(64);
    expect(idempotencyKeyProblem("k")).toBeNull();
    expect(idempotencyKeyProblem("k".repeat(64))).toBeNull();
    // 64 characters outside the BMP: 128 UTF-16 code units, still 64 characters.
    expect(idempotencyKeyProblem("😀".repeat(64))).toBeNull();
    expect(idempotencyKeyProblem("")).toBe("missing");
    expect(idempotencyKeyProblem("k".repeat(65))).toBe("too_long");
    expect(idempotencyKeyProblem("a\u0000b")).toBe("unstorable");
    expect(idempotencyKeyProblem("\u0000".repeat(65))).toBe("too_long");
  });
});
