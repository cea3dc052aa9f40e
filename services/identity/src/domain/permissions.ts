/**
 * Permissions, not role names, are what callers check (docs/platform-api.md, "Roles
 * and permissions"). This file is the one table from what a principal is (a machine
 * credential, or a person's roles) to what it may do.
 */

import { isPrivileged, MERCHANT_PERMISSIONS, MERCHANT_ROLE_PERMISSIONS, PERMISSIONS, ROLES, type Permission, type Role } from "@payin/permissions";

/** Roles a person can hold; the only values CreateIdentity accepts (@payin/permissions' list). */
export { ROLES, type Role };

/** Whether permissions make a principal privileged: @payin/permissions' one rule, decided here and sent on the principal. */
export { isPrivileged };

/** What a principal holds that grants permissions: a person's role, or being a machine credential. */
export type Grant = Role | "machine_credential";

/** The one mapping of grants to permissions. */
export const GRANT_PERMISSIONS: Record<Grant, readonly Permission[]> = {
  // Every administrative permission: all but those that act for a merchant.
  platform_admin: PERMISSIONS.filter((p) => !MERCHANT_PERMISSIONS.includes(p)),
  platform_operator: ["merchant.read", "identity.read", "audit.read"],
  // The merchant roles' table is @payin/permissions' (a membership's role for one merchant grants the same).
  merchant_admin: MERCHANT_ROLE_PERMISSIONS.merchant_admin,
  merchant_member: MERCHANT_ROLE_PERMISSIONS.merchant_member,
  // A machine credential has exactly these two (docs/api.md, "Authentication").
  machine_credential: ["merchant.payin.create", "merchant.payin.read"],
};


/** The permissions of a set of grants: their union, in the order of PERMISSIONS. */
export function permissionsOf(grants: readonly Grant[]): Permission[] {
  const granted = new Set(grants.flatMap((grant) => GRANT_PERMISSIONS[grant]));
  return PERMISSIONS.filter((permission) => granted.has(permission));
}

/** True for a role name this platform knows (exact, case-sensitive). */
export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
