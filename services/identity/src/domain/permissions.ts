/**
 * Permissions, not role names, are what callers check (DESIGN §7). This file is the
 * one table from what a principal is (a machine credential, and later a human's
 * roles) to what it may do.
 */

/** Every permission the platform knows. */
export const PERMISSIONS = ["merchant.payin.create", "merchant.payin.read"] as const;

export type Permission = (typeof PERMISSIONS)[number];

/**
 * What a principal holds that grants permissions. A machine credential is one fixed
 * grant; human roles (`platform_admin`, `merchant_admin`, ...) join this union with
 * human identities.
 */
export type Grant = "machine_credential";

/** The one mapping of grants to permissions. */
export const GRANT_PERMISSIONS: Record<Grant, readonly Permission[]> = {
  // Spec "Authentication" 5: a machine credential has exactly these two.
  machine_credential: ["merchant.payin.create", "merchant.payin.read"],
};

/** The permissions of a set of grants: their union, in the order of PERMISSIONS. */
export function permissionsOf(grants: readonly Grant[]): Permission[] {
  const granted = new Set(grants.flatMap((grant) => GRANT_PERMISSIONS[grant]));
  return PERMISSIONS.filter((permission) => granted.has(permission));
}
