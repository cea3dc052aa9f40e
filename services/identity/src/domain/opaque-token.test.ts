import { describe, expect, it, vi } from "vitest";

// Hands out a token that starts like a machine token first, then real randomness.
const machineLooking = Buffer.from(`mpk_${"A".repeat(39)}`, "base64url");
let served = 0;
vi.mock("node:crypto", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:crypto")>();
  return { ...real, randomBytes: (size: number) => (served++ === 0 && size === 32 ? Buffer.from(machineLooking) : real.randomBytes(size)) };
});

const { hashOpaqueToken, newOpaqueToken } = await import("./opaque-token.js");

describe("newOpaqueToken", () => {
  it("never issues a token that the gateway would take for a machine token", () => {
    expect(machineLooking.toString("base64url").startsWith("mpk_")).toBe(true);
    const { token, hash } = newOpaqueToken();
    expect(served).toBe(2);
    expect(token.startsWith("mpk_")).toBe(false);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hashOpaqueToken(token)).toEqual(hash);
  });
});
