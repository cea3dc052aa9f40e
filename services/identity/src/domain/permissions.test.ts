import { describe, expect, it } from "vitest";
import { MERCHANT_PERMISSIONS, PERMISSIONS } from "@payin/permissions";
import { GRANT_PERMISSIONS, isPrivileged, isRole, permissionsOf, ROLES } from "./permissions.js";

describe("permissionsOf", () => {
  it("gives a machine credential exactly the two pay-in permissions", () => {
    expect(permissionsOf(["machine_credential"])).toEqual(["merchant.payin.create", "merchant.payin.read"]);
  });

  it("grants nothing without a grant, and never duplicates", () => {
    expect(permissionsOf([])).toEqual([]);
    expect(permissionsOf(["machine_credential", "machine_credential"])).toHaveLength(2);
    expect(permissionsOf(["merchant_admin", "merchant_member"])).toEqual(["merchant.payin.create", "merchant.payin.read", "checkout.manage", "webhook.manage"]);
  });

  it("maps every role as docs/platform-api.md's table decides", () => {
    // A platform admin holds every administrative permission: all the library knows but the merchant-side ones.
    const admin = permissionsOf(["platform_admin"]);
    expect(admin.filter((p) => MERCHANT_PERMISSIONS.includes(p))).toEqual([]);
    expect([...admin, ...MERCHANT_PERMISSIONS].sort()).toEqual([...PERMISSIONS].sort());
    expect(admin).toEqual(expect.arrayContaining(["identity.create", "identity.manage", "credential.manage", "provider.manage", "audit.read"]));
    expect(permissionsOf(["platform_operator"]).sort()).toEqual(["audit.read", "identity.read", "merchant.read"]);
    expect(permissionsOf(["merchant_admin"]).sort()).toEqual(["checkout.manage", "merchant.payin.create", "merchant.payin.read", "webhook.manage"]);
    expect(permissionsOf(["merchant_member"]).sort()).toEqual(["merchant.payin.create", "merchant.payin.read"]);
  });

  it("keeps people on the platform side away from pay-ins and merchants' people away from the platform", () => {
    expect(permissionsOf(["platform_admin"])).not.toContain("merchant.payin.create");
    expect(permissionsOf(["platform_operator"])).not.toContain("identity.manage");
    for (const role of ["merchant_admin", "merchant_member"] as const) {
      expect(permissionsOf([role]).some((p) => p.startsWith("identity.") || p === "credential.manage")).toBe(false);
    }
  });

  it("only grants known permissions, and knows exactly the four roles", () => {
    for (const granted of Object.values(GRANT_PERMISSIONS)) for (const p of granted) expect(PERMISSIONS).toContain(p);
    expect(ROLES).toEqual(["platform_admin", "platform_operator", "merchant_admin", "merchant_member"]);
    expect(isRole("platform_admin")).toBe(true);
    for (const other of ["machine_credential", "PLATFORM_ADMIN", "admin", ""]) expect(isRole(other)).toBe(false);
  });
});

describe("isPrivileged", () => {
  it("is true for any administrative permission, false for merchant-side ones only", () => {
    expect(isPrivileged(permissionsOf(["platform_admin"]))).toBe(true);
    expect(isPrivileged(permissionsOf(["platform_operator"]))).toBe(true);
    expect(isPrivileged(permissionsOf(["merchant_admin", "platform_operator"]))).toBe(true);
    for (const grant of ["merchant_admin", "merchant_member", "machine_credential"] as const) expect(isPrivileged(permissionsOf([grant]))).toBe(false);
    expect(isPrivileged([])).toBe(false);
    // Every permission but the four merchant-side ones makes a principal privileged.
    const administrative = PERMISSIONS.filter((p) => isPrivileged([p]));
    expect(PERMISSIONS.filter((p) => !administrative.includes(p))).toEqual(["merchant.payin.create", "merchant.payin.read", "checkout.manage", "webhook.manage"]);
  });
});
