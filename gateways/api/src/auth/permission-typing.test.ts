import { describe, expect, it } from "vitest";
import { requirePermission, type Principal } from "./authenticator.js";

describe("requirePermission", () => {
  it("takes only a permission the platform knows: a misspelt one fails to compile", () => {
    const principal: Principal = { kind: "machine", merchantUuid: "m", permissions: new Set(["merchant.payin.read"]), actorAssertion: "" };
    expect(() => requirePermission(principal, "merchant.payin.read")).not.toThrow();
    // @ts-expect-error "merchant.payin.raed" is not a Permission
    expect(() => requirePermission(principal, "merchant.payin.raed")).toThrow();
  });
});
