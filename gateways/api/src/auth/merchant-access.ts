/**
 * Who may act for a merchant on its pay-in routes: the credential (identity
 * service, through the authenticator) and, for a person, a membership
 * (@payin/operations' requireMembership, asked of the merchants service).
 */
import type { Context } from "koa";
import { permissionsForMerchant, type Permission } from "@payin/permissions";
import { requireMembership } from "@payin/operations";
import { requireMerchant, requirePermission, type Principal } from "./authenticator.js";
import type { AppDeps } from "../deps.js";

export type MerchantAccessDeps = Pick<AppDeps, "auth" | "merchants">;

/**
 * Authenticates the request and decides whether it may perform `permission` on
 * `merchantUuid`, before anything of the request is read:
 * - a machine credential needs the permission and must be the merchant's own
 *   (decided without any lookup);
 * - a person needs a membership of the merchant (asked on every request, so a
 *   removed membership or a changed role applies at once), then the permission
 *   among what they may do for that merchant (@payin/permissions'
 *   permissionsForMerchant: the membership's role, else their own roles'
 *   merchant permissions); the principal answered carries those.
 * A cookie session's create also needs X-CSRF-Token (checked in authenticate).
 */
export async function authoriseForMerchant(deps: MerchantAccessDeps, ctx: Context, merchantUuid: string, permission: Permission): Promise<Principal> {
  const principal = await deps.auth.authenticate(ctx);
  if (principal.kind === "machine") {
    requirePermission(principal, permission);
    requireMerchant(principal, merchantUuid);
    return principal;
  }
  const membership = await requireMembership(deps, principal.identityUuid!, merchantUuid);
  const forMerchant: Principal = { ...principal, permissions: permissionsForMerchant(principal.permissions, membership) };
  requirePermission(forMerchant, permission);
  return forMerchant;
}
