import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newSigningKey, openSigningKey, sealSigningKey, secretText, signingSecrets } from "./secrets.js";

const KEY = randomBytes(32);
const E1 = "0194f000-0000-7000-8000-000000000001";
const E2 = "0194f000-0000-7000-8000-000000000002";

describe("endpoint secrets", () => {
  it("are whsec_ and base64 of 32 random bytes, sealed so that only the service's key and their own row open them", () => {
    const key = newSigningKey();
    expect(secretText(key)).toBe(`whsec_${key.toString("base64")}`);
    const sealed = sealSigningKey(KEY, E1, key);
    expect(sealed.includes(key)).toBe(false);
    expect(openSigningKey(KEY, E1, sealed)).toEqual(key);
    expect(() => openSigningKey(KEY, E2, sealed)).toThrow();
    expect(() => openSigningKey(randomBytes(32), E1, sealed)).toThrow();
    expect(sealSigningKey(KEY, E1, key)).not.toEqual(sealed);
  });

  it("sign with the previous secret beside the current one until its grace period ends", () => {
    const current = newSigningKey();
    const previous = newSigningKey();
    const until = new Date("2026-11-28T12:00:00Z");
    const sealed = { secretSealed: sealSigningKey(KEY, E1, current), previousSecretSealed: sealSigningKey(KEY, E1, previous), previousSecretExpiresAt: until };
    expect(signingSecrets(KEY, E1, sealed, new Date(until.getTime() - 1))).toEqual([secretText(current), secretText(previous)]);
    expect(signingSecrets(KEY, E1, sealed, until)).toEqual([secretText(current)]);
    expect(signingSecrets(KEY, E1, { ...sealed, previousSecretSealed: null, previousSecretExpiresAt: null }, new Date(0))).toEqual([secretText(current)]);
  });
});
