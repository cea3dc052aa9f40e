import { isPermission, MERCHANT_PERMISSIONS, type Permission } from "./index.js";
import type { Role } from "./roles.js";

/**
 * The roles a person can hold for one merchant: a membership's role (the
 * merchants service keeps it), and the merchant roles an identity can hold.
 */
export const MERCHANT_ROLES = ["merchant_admin", "merchant_member"] as const satisfies readonly Role[];

export type MerchantRole = (typeof MERCHANT_ROLES)[number];

/**
 * What each merchant role grants: the one table, read by the identity service
 * (an identity's own roles) and by the gateways (a membership's role).
 */
export const MERCHANT_ROLE_PERMISSIONS: Readonly<Record<MerchantRole, readonly Permission[]>> = {
  merchant_admin: ["merchant.payin.create", "merchant.payin.read", "checkout.manage", "webhook.manage"],
  merchant_member: ["merchant.payin.create", "merchant.payin.read"],
};

/** True for a merchant role (exact, case-sensitive). */
export function isMerchantRole(value: string): value is MerchantRole {
  return (MERCHANT_ROLES as readonly string[]).includes(value);
}

/**
 * The one decision of what a person may do for one merchant: `own` is what the
 * person's identity grants (identity's answer for the session), `membership`
 * the person's membership of that merchant (null when there is none).
 * - Administrative permissions (platform roles) are the person's own, whatever
 *   the membership.
 * - Merchant permissions (MERCHANT_PERMISSIONS): none without a membership; a
 *   membership with a role gives exactly that role's, for this merchant only;
 *   a membership naming no role gives the merchant permissions of the
 *   identity's own roles. A role this table does not know gives none.
 * Every merchant-scoped check of a person asks this, then checks a permission.
 */
export function permissionsForMerchant(own: Iterable<string>, membership: { role?: string | null } | null): ReadonlySet<Permission> {
  const held = new Set(own);
  const administrative = [...held].filter((p): p is Permission => isPermission(p) && !MERCHANT_PERMISSIONS.includes(p));
  let merchant: readonly Permission[] = [];
  if (membership) {
    const role = membership.role;
    if (role === undefined || role === null) merchant = MERCHANT_PERMISSIONS.filter((p) => held.has(p));
    else if (isMerchantRole(role)) merchant = MERCHANT_ROLE_PERMISSIONS[role];
  }
  return new Set([...administrative, ...merchant]);
}
