import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { totpCodeOfStep, totpStep } from "@payin/otp";
import { base32nopad } from "@scure/base";
import { generateTotpSecret, matchTotp, otpauthUri, TOTP_SECRET_BYTES } from "./totp.js";

// The RFC 6238 Appendix B secret.
const RFC_SECRET = Buffer.from("12345678901234567890", "ascii");

const at = (seconds: number) => new Date(seconds * 1000);

describe("matchTotp", () => {
  const now = at(1111111111);
  const step = totpStep(now);
  const codeAt = (offsetSteps: number) => totpCodeOfStep(RFC_SECRET, step + offsetSteps);

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
    // The RFC secret gives 468457 at both counters 153567 and 153569.
    expect(totpCodeOfStep(RFC_SECRET, 153567)).toBe("468457");
    expect(totpCodeOfStep(RFC_SECRET, 153569)).toBe("468457");
    const middle = at(153568 * 30 + 15);
    expect(matchTotp(RFC_SECRET, "468457", middle, null)).toBe(153569);
    expect(matchTotp(RFC_SECRET, "468457", middle, 153569)).toBeNull();
  });

  it("looks at no step before the epoch", () => {
    expect(matchTotp(RFC_SECRET, totpCodeOfStep(RFC_SECRET, 0), at(10), null)).toBe(0);
    expect(matchTotp(RFC_SECRET, "000000", at(10), null)).toBeNull();
  });

  it("accepts the codes of the first steps after the epoch, step 0 included", () => {
    expect(matchTotp(RFC_SECRET, totpCodeOfStep(RFC_SECRET, 0), at(45), null)).toBe(0);
    expect(matchTotp(RFC_SECRET, totpCodeOfStep(RFC_SECRET, 0), at(45), 0)).toBeNull();
    expect(matchTotp(RFC_SECRET, totpCodeOfStep(RFC_SECRET, 2), at(45), 0)).toBe(2);
  });

  it.each(["", "12345", "1234567", "12345a", " 123456", "１２３４５６"])("refuses malformed code %j", (code) => {
    expect(matchTotp(RFC_SECRET, code, now, null)).toBeNull();
  });

  it("builds the otpauth URI with a base32 secret that decodes back", () => {
    const secret = randomBytes(20);
    const uri = otpauthUri("ops@example.com", secret);
    expect(uri).toBe(`otpauth://totp/Payin:ops@example.com?secret=${base32nopad.encode(secret)}&issuer=Payin&algorithm=SHA1&digits=6&period=30`);
    const parsed = new URL(uri);
    expect(Buffer.from(base32nopad.decode(parsed.searchParams.get("secret")!)).equals(secret)).toBe(true);
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
