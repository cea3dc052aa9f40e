/**
 * Every permission the platform knows (docs/platform-api.md, "Roles and
 * permissions"): the identity service grants them, the gateways check them.
 * One typed list, so a misspelt permission fails to compile on either side.
 * Which roles grant which permissions is the identity service's table.
 */
export const PERMISSIONS = [
  "identity.create",
  "identity.read",
  "identity.manage",
  "merchant.read",
  "merchant.manage",
  "credential.manage",
  "rule.manage",
  "policy.manage",
  "provider.manage",
  "audit.read",
  "merchant.payin.create",
  "merchant.payin.read",
  "checkout.manage",
  "webhook.manage",
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/**
 * Permissions that act for a merchant (its pay-ins and checkout), as merchant
 * people and machine credentials do. Every other permission is administrative:
 * a person holding one acts only through a session that completed MFA.
 */
export const MERCHANT_PERMISSIONS: readonly Permission[] = ["merchant.payin.create", "merchant.payin.read", "checkout.manage", "webhook.manage"];

/** True for a permission this platform knows (exact, case-sensitive). */
export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/**
 * True when `permissions` include an administrative one (any outside
 * MERCHANT_PERMISSIONS): such a person may act only through a session that
 * completed MFA. Identity decides it and sends it on the principal
 * (`privileged`); the gateways take that flag and never decide it again.
 */
export function isPrivileged(permissions: readonly Permission[]): boolean {
  return permissions.some((permission) => !MERCHANT_PERMISSIONS.includes(permission));
}

export * from "./capabilities.js";
export * from "./roles.js";
export * from "./merchant-access.js";

/**
 * The permission setting a merchant's receiving wallet takes (with a second
 * factor completed recently): the admin API's route, payinctl's command and
 * allocation itself check this one.
 */
export const WALLET_PERMISSION: Permission = "provider.manage";
