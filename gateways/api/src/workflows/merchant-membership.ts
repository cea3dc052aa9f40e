/**
 * Memberships are the merchants service's; the identity they name is the
 * identity service's. An identity that does not exist is 404 IDENTITY_NOT_FOUND,
 * before anything is written.
 */
import { ApiError } from "@payin/http";
import { isUuidAnyCase } from "@payin/ids";
import type { AppDeps } from "../deps.js";
import { existingMerchant } from "./merchant-state.js";
import type { Actor } from "./audited-change.js";

export type MembershipDeps = Pick<AppDeps, "identity" | "merchants">;

/** Makes the identity a member of the merchant; `created` is false when it already was. */
export async function attachMember(deps: MembershipDeps, merchantUuid: string, identityUuid: string, actor: Actor) {
  await deps.identity.getIdentity({ identityUuid });
  return deps.merchants.ensureMember({ merchantUuid, identityUuid, actor });
}

/**
 * The identity's membership of the merchant: 404 MERCHANT_NOT_FOUND for no such
 * merchant, MEMBER_NOT_FOUND when the identity (unknown, malformed uuid) is not
 * one of its members.
 */
export async function readMember(deps: MembershipDeps, merchantUuid: string, identityUuid: string) {
  const merchant = await existingMerchant(deps, merchantUuid);
  const notFound = () => new ApiError("MEMBER_NOT_FOUND", "member not found");
  if (!isUuidAnyCase(identityUuid)) throw notFound();
  const { memberships } = await deps.merchants.listMemberships({ identityUuid: identityUuid.toLowerCase() });
  const membership = memberships.find((m) => m.merchantUuid === merchant.uuid);
  if (!membership) throw notFound();
  return membership;
}
