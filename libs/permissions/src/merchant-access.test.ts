import { describe, expect, it } from "vitest";
import { MERCHANT_PERMISSIONS, MERCHANT_ROLE_PERMISSIONS, MERCHANT_ROLES, permissionsForMerchant, ROLES, type Permission } from "./index.js";

const sorted = (set: ReadonlySet<Permission>) => [...set].sort();
const ADMIN = MERCHANT_ROLE_PERMISSIONS.merchant_admin;
const MEMBER = MERCHANT_ROLE_PERMISSIONS.merchant_member;

describe("permissionsForMerchant", () => {
  it("gives no merchant permission without a membership, whatever the identity's roles", () => {
    expect(sorted(permissionsForMerchant(ADMIN, null))).toEqual([]);
  });

  it("gives, for a membership naming no role, the merchant permissions the identity's own roles grant", () => {
    expect(sorted(permissionsForMerchant(ADMIN, {}))).toEqual([...ADMIN].sort());
    expect(sorted(permissionsForMerchant(MEMBER, { role: null }))).toEqual([...MEMBER].sort());
    expect(sorted(permissionsForMerchant(["merchant.read", "audit.read"], {}))).toEqual(["audit.read", "merchant.read"]);
  });

  it("gives, for a membership with a role, exactly that role's merchant permissions, widening or narrowing the identity's", () => {
    expect(sorted(permissionsForMerchant(MEMBER, { role: "merchant_admin" }))).toEqual([...ADMIN].sort());
    expect(sorted(permissionsForMerchant(ADMIN, { role: "merchant_member" }))).toEqual([...MEMBER].sort());
    expect(permissionsForMerchant(ADMIN, { role: "merchant_member" }).has("checkout.manage")).toBe(false);
    expect(permissionsForMerchant(ADMIN, { role: "merchant_member" }).has("webhook.manage")).toBe(false);
    expect(permissionsForMerchant(MEMBER, { role: "merchant_admin" }).has("webhook.manage")).toBe(true);
  });

  it("keeps administrative permissions as they are, and gives nothing for a role it does not know", () => {
    const operator = ["merchant.read", "identity.read", "audit.read"];
    expect(sorted(permissionsForMerchant([...operator, ...ADMIN], { role: "merchant_member" }))).toEqual([...operator, ...MEMBER].sort());
    expect(sorted(permissionsForMerchant(ADMIN, { role: "platform_admin" }))).toEqual([]);
    expect(sorted(permissionsForMerchant(["not.a.permission", ...MEMBER], {}))).toEqual([...MEMBER].sort());
  });

  it("names merchant roles among the roles, granting merchant permissions only", () => {
    for (const role of MERCHANT_ROLES) {
      expect(ROLES).toContain(role);
      for (const permission of MERCHANT_ROLE_PERMISSIONS[role]) expect(MERCHANT_PERMISSIONS).toContain(permission);
    }
  });
});
