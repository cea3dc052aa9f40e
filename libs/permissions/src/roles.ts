/**
 * The roles a person can hold (the only values identity's CreateIdentity
 * accepts; which permissions each grants is the identity service's table) and
 * the statuses of a person's account. Here, not in identity, so the gateways'
 * documents list the same values identity decides.
 */
export const ROLES = ["platform_admin", "platform_operator", "merchant_admin", "merchant_member"] as const;

export type Role = (typeof ROLES)[number];

/** An identity's status: active signs in; disabled (someone who left) and locked (an incident) do not. */
export const IDENTITY_STATUSES = ["active", "disabled", "locked"] as const;

export type IdentityStatus = (typeof IDENTITY_STATUSES)[number];
