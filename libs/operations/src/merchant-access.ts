/**
 * Whether a person may act for a merchant on its pay-in routes: a membership,
 * asked of the merchants service on every request (nothing is kept), so a
 * removed membership or a changed role applies at once. (A machine credential
 * acts only for its own merchant, decided by the gateway without any lookup.)
 */
import { ApiError } from "@payin/http/errors";
import type { merchantsV1 } from "@payin/proto";
import type { ServicePorts } from "./ports.js";

/**
 * The identity's membership of the merchant, with its role there (what the
 * person may do for it is @payin/permissions' permissionsForMerchant of it);
 * 403 FORBIDDEN when the identity is not a member.
 */
export async function requireMembership(ports: Pick<ServicePorts, "merchants">, identityUuid: string, merchantUuid: string): Promise<merchantsV1.Membership> {
  const { memberships } = await ports.merchants.listMemberships({ identityUuid });
  const membership = memberships.find((m) => m.merchantUuid === merchantUuid);
  if (!membership) throw new ApiError("FORBIDDEN", "the signed-in identity is not a member of this merchant");
  return membership;
}
