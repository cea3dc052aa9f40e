import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { base32nopad } from "@scure/base";
import { describe, expect, it } from "vitest";
import { looksLikeTotpCode, matchTotpStep, totpCode, totpCodeOfStep, totpStep, totpUri } from "./index.js";

// RFC 6238 Appendix B, SHA-1 rows: the 20-byte ASCII secret and 8-digit codes.
const RFC_SECRET = Buffer.from("12345678901234567890", "ascii");
const RFC_VECTORS: [number, string][] = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

const at = (seconds: number) => new Date(seconds * 1000);

describe("TOTP (RFC 6238)", () => {
  it.each(RFC_VECTORS)("matches the RFC 6238 SHA-1 vector at T=%i (its last 6 digits)", (seconds, expected) => {
    expect(totpCode(RFC_SECRET, at(seconds))).toBe(expected.slice(2));
  });

  it("gives a step's code the RFC 4226 HOTP value of that counter", () => {
    const expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"];
    expect(expected.map((_, counter) => totpCodeOfStep(RFC_SECRET, counter))).toEqual(expected);
  });

  it("reads a secret as bytes or as its base32 text, either case", () => {
    const text = base32nopad.encode(RFC_SECRET);
    expect(totpCode(text, at(59))).toBe("287082");
    expect(totpCode(text.toLowerCase(), at(59))).toBe("287082");
  });

  it("steps in 30-second periods from the epoch", () => {
    expect([0, 29.999, 30, 59.999, 60].map((s) => totpStep(at(s)))).toEqual([0, 0, 1, 1, 2]);
  });

  it("accepts one step either side, after the last used step only", () => {
    const now = at(1111111111);
    const step = totpStep(now);
    const code = (offset: number) => totpCodeOfStep(RFC_SECRET, step + offset);
    expect([-2, -1, 0, 1, 2].map((offset) => matchTotpStep(RFC_SECRET, code(offset), now, null))).toEqual([null, step - 1, step, step + 1, null]);
    expect(matchTotpStep(RFC_SECRET, code(0), now, step)).toBeNull();
    expect(matchTotpStep(RFC_SECRET, code(1), now, step)).toBe(step + 1);
    // A last used step beyond the window (a clock set back) accepts nothing.
    expect(matchTotpStep(RFC_SECRET, code(1), now, step + 5)).toBeNull();
  });

  it("looks at no step before the epoch, and takes step 0 as a last used step", () => {
    const code0 = totpCodeOfStep(RFC_SECRET, 0);
    expect(matchTotpStep(RFC_SECRET, code0, at(45), null)).toBe(0);
    expect(matchTotpStep(RFC_SECRET, code0, at(45), 0)).toBeNull();
    expect(matchTotpStep(RFC_SECRET, code0, at(45), -1)).toBe(0);
  });

  it.each(["", "12345", "1234567", "a123456", "123456a", " 123456", "12345a", "１２３４５６"])("answers null for %j, which is no code", (code) => {
    expect(looksLikeTotpCode(code)).toBe(false);
    expect(matchTotpStep(RFC_SECRET, code, at(1111111111), null)).toBeNull();
  });

  it("spells every parameter out in the otpauth URI", () => {
    const secret = randomBytes(20);
    expect(totpUri("Payin", "ops@example.com", secret)).toBe(
      `otpauth://totp/Payin:ops@example.com?secret=${base32nopad.encode(secret)}&issuer=Payin&algorithm=SHA1&digits=6&period=30`,
    );
  });
});

function oathtoolAvailable(): boolean {
  try {
    execFileSync("oathtool", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("TOTP against oathtool, an independent implementation", () => {
  it.skipIf(!oathtoolAvailable())("agrees on codes for several secrets and times", () => {
    for (let i = 0; i < 8; i++) {
      const secret = randomBytes(20);
      const seconds = 1_000_000_000 + i * 987_654_321 + (i % 3) * 17;
      const expected = execFileSync(
        "oathtool",
        ["--totp=SHA1", "--digits=6", "--time-step-size=30s", "--base32", `--now=@${seconds}`, base32nopad.encode(secret)],
        { encoding: "utf8" },
      ).trim();
      expect(totpCode(secret, at(seconds))).toBe(expected);
    }
  });
});
