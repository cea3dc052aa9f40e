/**
 * Whether a person may act for a merchant on its pay-in routes: a membership,
 * asked of the merchants service on every request, so a removed membership
 * applies at once. (A machine credential acts only for its own merchant,
 * decided by the gateway without any lookup.)
 */
import { ApiError } from "@payin/http/errors";
import type { ServicePorts } from "./ports.js";

/** Throws 403 FORBIDDEN unless the identity is a member of the merchant. */
export async function requireMembership(ports: Pick<ServicePorts, "merchants">, identityUuid: string, merchantUuid: string): Promise<void> {
  const { memberships } = await ports.merchants.listMemberships({ identityUuid });
  if (!memberships.some((m) => m.merchantUuid === merchantUuid)) {
    throw new ApiError("FORBIDDEN", "the signed-in identity is not a member of this merchant");
  }
}
