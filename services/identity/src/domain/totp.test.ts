import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { base32Decode, base32Encode } from "./base32.js";
import { generateTotpSecret, hotp, matchTotp, otpauthUri, TOTP_SECRET_BYTES, totpCode, totpStep } from "./totp.js";

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

  const now = at(1111111111);
  const step = totpStep(now);
  const codeAt = (offsetSteps: number) => hotp(RFC_SECRET, step + offsetSteps);

  it("accepts the current step and one step either side, answering the step", () => {
    expect(matchTotp(RFC_SECRET, codeAt(0), now, null)).toBe(step);
    expect(matchTotp(RFC_SECRET, codeAt(-1), now, null)).toBe(step - 1);
    expect(matchTotp(RFC_SECRET, codeAt(1), now, null)).toBe(step + 1);
  });

  it("refuses codes two steps away", () => {
    expect(matchTotp(RFC_SECRET, codeAt(-2), now, null)).toBeNull();
    expect(matchTotp(RFC_SECRET, codeAt(2), now, null)).toBeNull();
  });

  it("refuses a step already used, and older ones", () => {
    expect(matchTotp(RFC_SECRET, codeAt(0), now, step)).toBeNull();
    expect(matchTotp(RFC_SECRET, codeAt(-1), now, step)).toBeNull();
    expect(matchTotp(RFC_SECRET, codeAt(1), now, step)).toBe(step + 1);
  });

  it("records the newest step a code matches, so a code two steps share is used only once", () => {
    // hotp(RFC secret) gives 468457 at both counters 153567 and 153569.
    expect(hotp(RFC_SECRET, 153567)).toBe("468457");
    expect(hotp(RFC_SECRET, 153569)).toBe("468457");
    const middle = at(153568 * 30 + 15);
    expect(matchTotp(RFC_SECRET, "468457", middle, null)).toBe(153569);
    expect(matchTotp(RFC_SECRET, "468457", middle, 153569)).toBeNull();
  });

  it("looks at no step before the epoch", () => {
    expect(matchTotp(RFC_SECRET, hotp(RFC_SECRET, 0), at(10), null)).toBe(0);
    expect(matchTotp(RFC_SECRET, "000000", at(10), null)).toBeNull();
  });

  it("accepts the codes of the first steps after the epoch, step 0 included", () => {
    expect(matchTotp(RFC_SECRET, hotp(RFC_SECRET, 0), at(45), null)).toBe(0);
    expect(matchTotp(RFC_SECRET, hotp(RFC_SECRET, 0), at(45), 0)).toBeNull();
    expect(matchTotp(RFC_SECRET, hotp(RFC_SECRET, 2), at(45), 0)).toBe(2);
  });

  it("steps in 30-second periods from the epoch", () => {
    expect([0, 29.999, 30, 59.999, 60].map((s) => totpStep(at(s)))).toEqual([0, 0, 1, 1, 2]);
  });

  it.each(["", "12345", "1234567", "12345a", " 123456", "１２３４５６"])("refuses malformed code %j", (code) => {
    expect(matchTotp(RFC_SECRET, code, now, null)).toBeNull();
  });

  it("builds the otpauth URI with a base32 secret that decodes back", () => {
    const secret = randomBytes(20);
    const uri = otpauthUri("ops@example.com", secret);
    expect(uri).toBe(`otpauth://totp/Payin:ops@example.com?secret=${base32Encode(secret)}&issuer=Payin&algorithm=SHA1&digits=6&period=30`);
    const parsed = new URL(uri);
    expect(base32Decode(parsed.searchParams.get("secret")!)?.equals(secret)).toBe(true);
  });
});

describe("generateTotpSecret", () => {
  it("makes a new random secret of 160 bits each time", () => {
    const a = generateTotpSecret();
    const b = generateTotpSecret();
    expect(TOTP_SECRET_BYTES).toBe(20);
    expect(a).toHaveLength(20);
    expect(b).toHaveLength(20);
    expect(a.equals(b)).toBe(false);
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
