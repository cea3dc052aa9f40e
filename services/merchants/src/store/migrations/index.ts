import { InitialMerchants } from "./migration-2026-11-21-initial.js";
import { MerchantAdministration } from "./migration-2026-11-22-administration.js";
import { PayinContextChanges } from "./migration-2026-11-22-payin-context-changes.js";
import { PayinContextProviders } from "./migration-2026-11-25-payin-context-providers.js";
import { MembershipRoles } from "./migration-2026-11-27-membership-roles.js";
import { AuditOsUser } from "./migration-2026-11-27-audit-os-user.js";

/** Every migration of the merchants schema, oldest first. Never edit a shipped one. */
export const migrations = [
  { name: "2026-11-21-initial", class: InitialMerchants },
  { name: "2026-11-22-administration", class: MerchantAdministration },
  { name: "2026-11-22-payin-context-changes", class: PayinContextChanges },
  { name: "2026-11-25-payin-context-providers", class: PayinContextProviders },
  { name: "2026-11-27-membership-roles", class: MembershipRoles },
  { name: "2026-11-27-audit-os-user", class: AuditOsUser },
];
