/**
 * Who may manage a merchant's webhook endpoints (their secrets decide what a
 * receiver trusts): a signed-in person only — a machine credential keeps its
 * two pay-in permissions and is refused 403 before anything else — holding
 * `webhook.manage` for that merchant (a member whose role grants it, as
 * merchant access decides every merchant permission), or a platform admin
 * holding `merchant.manage`, who needs no membership (the merchant must exist,
 * else 404 MERCHANT_NOT_FOUND). Both through a session that completed MFA when
 * the identity is privileged (requirePermission). A cookie session's change
 * also needs X-CSRF-Token (checked in authenticate).
 */
import type { Context } from "koa";
import { ApiError } from "@payin/http";
import { isUuid } from "@payin/ids";
import { existingMerchant, requireMembership } from "@payin/operations";
import { permissionsForMerchant, type Permission } from "@payin/permissions";
import { requireHuman, requirePermission, type HumanPrincipal } from "./authenticator.js";
import type { MerchantAccessDeps } from "./merchant-access.js";

/** The merchant permission that manages webhook endpoints. */
export const WEBHOOK_PERMISSION: Permission = "webhook.manage";
/** The platform permission under which an admin manages any merchant's endpoints. */
export const WEBHOOK_ADMIN_PERMISSION: Permission = "merchant.manage";

/** Authenticates and authorises a webhook-endpoint operation on `merchantUuid` (lower case) before anything of the request is read. */
export async function authoriseWebhookManager(deps: MerchantAccessDeps, ctx: Context, merchantUuid: string): Promise<HumanPrincipal> {
  const principal = await deps.auth.authenticate(ctx);
  if (principal.kind === "machine") {
    throw new ApiError("FORBIDDEN", `webhook endpoints are managed by a signed-in person holding ${WEBHOOK_PERMISSION}; a machine credential may not manage them`);
  }
  const person = requireHuman(principal);
  if (person.permissions.has(WEBHOOK_ADMIN_PERMISSION)) {
    requirePermission(person, WEBHOOK_ADMIN_PERMISSION);
    if (!isUuid(merchantUuid)) throw new ApiError("MERCHANT_NOT_FOUND", "merchant not found");
    await existingMerchant(deps, merchantUuid);
    return person;
  }
  const membership = await requireMembership(deps, person.identityUuid, merchantUuid);
  const forMerchant: HumanPrincipal = { ...person, permissions: permissionsForMerchant(person.permissions, membership) };
  requirePermission(forMerchant, WEBHOOK_PERMISSION);
  return forMerchant;
}
