import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { open, parseEncryptionKey, seal } from "./index.js";

describe("secret box (AES-256-GCM)", () => {
  const key = randomBytes(32);
  const secret = randomBytes(20);

  it("round-trips and never contains the plaintext", () => {
    const sealed = seal(key, secret, "identity-1");
    expect(sealed.includes(secret)).toBe(false);
    expect(open(key, sealed, "identity-1").equals(secret)).toBe(true);
    expect(seal(key, secret, "identity-1").equals(sealed)).toBe(false); // fresh IV each time
  });

  it("refuses another key, another row, and any tampering", () => {
    const sealed = seal(key, secret, "identity-1");
    expect(() => open(randomBytes(32), sealed, "identity-1")).toThrow();
    expect(() => open(key, sealed, "identity-2")).toThrow();
    const flipped = Buffer.from(sealed);
    flipped[flipped.length - 1]! ^= 1;
    expect(() => open(key, flipped, "identity-1")).toThrow();
    expect(() => open(key, sealed.subarray(0, 10), "identity-1")).toThrow();
  });

  it("parses only base64url of exactly 32 bytes", () => {
    const text = key.toString("base64url");
    expect(parseEncryptionKey(text)?.equals(key)).toBe(true);
    for (const bad of ["", "short", randomBytes(31).toString("base64url"), randomBytes(33).toString("base64url"), key.toString("base64"), `${text}=`]) {
      expect(parseEncryptionKey(bad)).toBeNull();
    }
  });
});
