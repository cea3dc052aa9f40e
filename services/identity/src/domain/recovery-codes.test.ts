import { createHash, createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  generateRecoveryCode,
  issueRecoveryCodes,
  recoveryCodeDigest,
  recoveryCodeHash,
  recoveryCodePepper,
  storedRecoveryCode,
  RECOVERY_CODE_COUNT,
} from "./recovery-codes.js";

describe("recovery code hashing", () => {
  it("normalises case, spaces and hyphens, and refuses text that cannot be a code", () => {
    const code = generateRecoveryCode();
    expect(code).toMatch(/^[A-Z2-7]{5}-[A-Z2-7]{5}$/);
    const digest = recoveryCodeDigest(code)!;
    expect(digest.equals(createHash("sha256").update(code.replace("-", "")).digest())).toBe(true);
    expect(recoveryCodeDigest(` ${code.toLowerCase().replace("-", " ")} `)!.equals(digest)).toBe(true);
    for (const text of ["", "123456", "ABCDE-FGHI1", "ABCDE-FGHIJK"]) expect(recoveryCodeDigest(text)).toBeNull();
  });

  it("stores one code differently each time: a fresh 16-byte salt and HMAC(pepper, salt ‖ digest)", () => {
    const key = randomBytes(32);
    const pepper = recoveryCodePepper(key);
    const digest = recoveryCodeDigest("ABCDE-FGHIJ")!;
    const [a, b] = [storedRecoveryCode(pepper, digest), storedRecoveryCode(pepper, digest)];
    expect(a.salt).toHaveLength(16);
    expect(a.salt.equals(b.salt)).toBe(false);
    expect(a.codeHash.equals(b.codeHash)).toBe(false);
    expect(a.codeHash.equals(digest)).toBe(false);
    expect(a.codeHash.equals(createHmac("sha256", pepper).update(Buffer.concat([a.salt, digest])).digest())).toBe(true);
    expect(recoveryCodeHash(pepper, b.salt, digest).equals(b.codeHash)).toBe(true);
  });

  it("derives the pepper from the TOTP key, not as the key itself", () => {
    const key = randomBytes(32);
    expect(recoveryCodePepper(key).equals(recoveryCodePepper(key))).toBe(true);
    expect(recoveryCodePepper(key).equals(key)).toBe(false);
    expect(recoveryCodePepper(key).equals(recoveryCodePepper(randomBytes(32)))).toBe(false);
  });

  it("issues ten distinct codes with their stored forms", () => {
    const key = randomBytes(32);
    const { codes, stored } = issueRecoveryCodes(key);
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    const pepper = recoveryCodePepper(key);
    codes.forEach((code, i) => expect(recoveryCodeHash(pepper, stored[i]!.salt, recoveryCodeDigest(code)!).equals(stored[i]!.codeHash)).toBe(true));
  });
});
