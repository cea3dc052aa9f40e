import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateMachineToken, hashSecret, parseMachineToken, secretMatches } from "./machine-token.js";

const FORMAT = /^mpk_[0-9a-f]{32}[A-Za-z0-9_-]{43}$/;

describe("generateMachineToken", () => {
  it("mints tokens of the documented format whose parts agree", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const { token, keyId, secretHash } = generateMachineToken();
      expect(token).toMatch(FORMAT);
      expect(token.slice(4, 36)).toBe(keyId);
      const parsed = parseMachineToken(token);
      expect(parsed?.keyId).toBe(keyId);
      expect(parsed?.secret).toHaveLength(32);
      expect(hashSecret(parsed!.secret).equals(secretHash)).toBe(true);
      seen.add(keyId);
    }
    expect(seen.size).toBe(200);
  });
});

describe("parseMachineToken", () => {
  const { token } = generateMachineToken();
  const keyId = token.slice(4, 36);
  const secret = token.slice(36);
  // The same secret bytes with the last character's two padding bits set.
  const lastIndex = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".indexOf(secret.at(-1)!);
  const nonCanonical = secret.slice(0, -1) + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"[lastIndex | 1];

  it("accepts the token it minted", () => {
    expect(parseMachineToken(token)).not.toBeNull();
  });

  it.each([
    ["empty", ""],
    ["prefix only", "mpk_"],
    ["upper-case prefix", `MPK_${keyId}${secret}`],
    ["dash instead of underscore", `mpk-${keyId}${secret}`],
    ["other prefix", `mpx_${keyId}${secret}`],
    ["no prefix", `${keyId}${secret}`],
    ["double underscore", `mpk__${keyId}${secret.slice(1)}`],
    ["upper-case hex key id", `mpk_${keyId.toUpperCase().replace(/^[0-9]/, "A")}${secret}`],
    ["non-hex key id", `mpk_g${keyId.slice(1)}${secret}`],
    ["31-character key id", `mpk_${keyId.slice(1)}${secret}`],
    ["42-character secret", `mpk_${keyId}${secret.slice(1)}`],
    ["44-character secret", `mpk_${keyId}${secret}A`],
    ["padded secret", `mpk_${keyId}${secret}=`],
    ["standard base64 '+'", `mpk_${keyId}+${secret.slice(1)}`],
    ["standard base64 '/'", `mpk_${keyId}/${secret.slice(1)}`],
    ["non-canonical last character", `mpk_${keyId}${nonCanonical}`],
    ["leading space", ` ${token}`],
    ["trailing space", `${token} `],
    ["trailing newline", `${token}\n`],
    ["trailing NUL", `${token}\0`],
    ["bearer scheme included", `Bearer ${token}`],
    ["full-width digit in key id", `mpk_\uFF11${keyId.slice(1)}${secret}`],
    ["human session token", randomBytes(32).toString("base64url")],
  ])("refuses %s", (_name, candidate) => {
    expect(parseMachineToken(candidate)).toBeNull();
  });
});

describe("secretMatches", () => {
  const secret = randomBytes(32);

  it("matches only the hash of the same secret", () => {
    expect(secretMatches(secret, hashSecret(secret))).toBe(true);
    expect(secretMatches(randomBytes(32), hashSecret(secret))).toBe(false);
  });

  it("answers false, without throwing, for a missing or malformed stored hash", () => {
    expect(secretMatches(secret, null)).toBe(false);
    expect(secretMatches(secret, Buffer.alloc(0))).toBe(false);
    expect(secretMatches(secret, Buffer.alloc(31))).toBe(false);
  });
});
