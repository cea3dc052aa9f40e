/**
 * Memberships are the merchants service's; the identity they name is the
 * identity service's. An identity that does not exist is 404 IDENTITY_NOT_FOUND,
 * before anything is written.
 */
import type { AppDeps } from "../deps.js";
import type { Actor } from "./audited-change.js";

export type MembershipDeps = Pick<AppDeps, "identity" | "merchants">;

/** Makes the identity a member of the merchant; `created` is false when it already was. */
export async function attachMember(deps: MembershipDeps, merchantUuid: string, identityUuid: string, actor: Actor) {
  await deps.identity.getIdentity({ identityUuid });
  return deps.merchants.ensureMember({ merchantUuid, identityUuid, actor });
}
