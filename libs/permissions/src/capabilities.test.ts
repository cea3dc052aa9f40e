import { describe, expect, it } from "vitest";
import { CAPABILITIES, isCapability, PAYIN_CAPABILITY, UNKNOWN_CAPABILITY_MESSAGE, type Capability } from "./index.js";

describe("capabilities", () => {
  it("are a closed list holding the pay-in capability, matched exactly", () => {
    expect(CAPABILITIES).toContain(PAYIN_CAPABILITY);
    expect(isCapability("crypto.payin")).toBe(true);
    for (const other of ["crypto.payout", "Crypto.payin", "crypto.payin ", "", "test.cap"]) expect(isCapability(other), other).toBe(false);
  });

  it("name every known capability in the refusal", () => {
    for (const capability of CAPABILITIES) expect(UNKNOWN_CAPABILITY_MESSAGE).toContain(capability);
  });

  it("refuse a misspelt capability at compile time", () => {
    // @ts-expect-error a capability that does not exist is not a Capability
    const misspelt: Capability = "crypto.paying";
    expect(isCapability(misspelt)).toBe(false);
  });
});
