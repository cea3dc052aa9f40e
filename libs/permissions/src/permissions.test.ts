import { describe, expect, it } from "vitest";
import { isPermission, MERCHANT_PERMISSIONS, PERMISSIONS, type Permission } from "./index.js";

describe("permissions", () => {
  it("are a closed list: merchant permissions are among them, and nothing else is one", () => {
    for (const permission of MERCHANT_PERMISSIONS) expect(PERMISSIONS).toContain(permission);
    expect(new Set(PERMISSIONS).size).toBe(PERMISSIONS.length);
    expect(isPermission("merchant.read")).toBe(true);
    expect(isPermission("merchant.raed")).toBe(false);
    expect(isPermission("Merchant.read")).toBe(false);
  });

  it("refuse a misspelt permission at compile time", () => {
    // @ts-expect-error a permission that does not exist is not a Permission
    const misspelt: Permission = "merchant.raed";
    expect(isPermission(misspelt)).toBe(false);
  });
});
