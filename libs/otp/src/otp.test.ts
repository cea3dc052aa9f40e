import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { base32Decode, base32Encode, hotp, totpCode, totpStep } from "./index.js";

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
  it.each(RFC_VECTORS)("matches the RFC 6238 SHA-1 vector at T=%i", (seconds, expected) => {
    expect(totpCode(RFC_SECRET, at(seconds), 8)).toBe(expected);
    // Our codes have 6 digits: the last 6 of the 8-digit value.
    expect(totpCode(RFC_SECRET, at(seconds))).toBe(expected.slice(2));
  });

  it("matches the RFC 4226 HOTP vectors", () => {
    const expected = ["755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"];
    expect(expected.map((_, counter) => hotp(RFC_SECRET, counter))).toEqual(expected);
  });

  it("steps in 30-second periods from the epoch", () => {
    expect([0, 29.999, 30, 59.999, 60].map((s) => totpStep(at(s)))).toEqual([0, 0, 1, 1, 2]);
  });
});

describe("base32", () => {
  it("matches the RFC 4648 test vectors", () => {
    const vectors = [["", ""], ["f", "MY"], ["fo", "MZXQ"], ["foo", "MZXW6"], ["foob", "MZXW6YQ"], ["fooba", "MZXW6YTB"], ["foobar", "MZXW6YTBOI"]];
    for (const [plain, encoded] of vectors) {
      expect(base32Encode(Buffer.from(plain!))).toBe(encoded);
      expect(base32Decode(encoded!)?.toString()).toBe(plain);
    }
    expect(base32Decode("MZXW6YTBOI======")?.toString()).toBe("foobar");
    expect(base32Decode("MZXW1")).toBeNull();
  });

  it("ignores '=' padding only at the end, and reads either case", () => {
    expect(base32Decode("MZXW6YQ=")?.toString()).toBe("foob");
    expect(base32Decode("mzxw6ytboi")?.toString()).toBe("foobar");
    expect(base32Decode("MZ=XW6")).toBeNull();
    expect(base32Decode("=MZXW6")).toBeNull();
  });

  it("round-trips every length of a random secret", () => {
    const bytes = randomBytes(41);
    for (let n = 0; n <= bytes.length; n++) {
      const part = bytes.subarray(0, n);
      const encoded = base32Encode(part);
      expect(encoded).toMatch(/^[A-Z2-7]*$/);
      expect(encoded).toHaveLength(Math.ceil((n * 8) / 5));
      expect(base32Decode(encoded)?.equals(part)).toBe(true);
    }
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
        ["--totp=SHA1", "--digits=6", "--time-step-size=30s", "--base32", `--now=@${seconds}`, base32Encode(secret)],
        { encoding: "utf8" },
      ).trim();
      expect(totpCode(secret, at(seconds))).toBe(expected);
    }
  });
});
