/**
 * Merchants and their members: changes the merchants service makes and records
 * itself (the request names the actor); refusals are recorded here (audit.ts).
 * A member's identity is the identity service's: one that does not exist is 404
 * IDENTITY_NOT_FOUND, before anything is written.
 */
import { ApiError } from "@payin/http/errors";
import { isUuidAnyCase } from "@payin/ids";
import { MERCHANT_TRANSITION, type MerchantTransitionName, type merchantsV1 } from "@payin/proto";
import { audited, type Actor, type AuditPorts } from "./audit.js";
import { existingMerchant } from "./merchant-state.js";
import type { Prepare, ServicePorts } from "./ports.js";

export type MerchantPorts = Pick<ServicePorts, "merchants"> & AuditPorts;
export type MembershipPorts = Pick<ServicePorts, "identity" | "merchants"> & AuditPorts;

/** Creates a merchant; it starts inactive. */
export function createMerchant(ports: MerchantPorts, actor: Actor, prepare: Prepare<{ displayName: string; legalName?: string }>): Promise<merchantsV1.Merchant> {
  return audited(ports, actor, { action: "merchant.create", target: { type: "merchant" }, successRecordedBy: "merchants" }, async () => {
    const input = await prepare();
    return (await ports.merchants.createMerchant({ ...input, actor })).merchant!;
  });
}

/** One transition of the contract; which source states each allows is the merchants service's table. */
export function transitionMerchant(ports: MerchantPorts, actor: Actor, uuid: string, verb: MerchantTransitionName, prepare?: Prepare<void>): Promise<merchantsV1.Merchant> {
  return audited(ports, actor, { action: `merchant.${verb}`, target: { type: "merchant", uuid }, successRecordedBy: "merchants" }, async () => {
    await prepare?.();
    return (await ports.merchants.transitionMerchant({ uuid, transition: MERCHANT_TRANSITION.byName[verb], actor })).merchant!;
  });
}

/**
 * Makes the identity a member of the merchant; `created` is false when it
 * already was. `role` (merchant_admin or merchant_member), when given, is the
 * member's role for this merchant: it sets a new membership's, and changes an
 * existing one's (`roleChanged`; the merchants service records
 * merchant.member.role_change). Without it a new membership names no role
 * (the identity's own merchant roles apply) and an existing one stays as it is.
 */
export function attachMember(
  ports: MembershipPorts,
  actor: Actor,
  merchantUuid: string,
  prepare: Prepare<{ identityUuid: string; role?: string }>,
): Promise<{ membership: merchantsV1.Membership; created: boolean; roleChanged: boolean }> {
  return audited(ports, actor, { action: "merchant.member.attach", target: { type: "merchant", uuid: merchantUuid }, successRecordedBy: "merchants" }, async () => {
    const { identityUuid, role } = await prepare();
    await ports.identity.getIdentity({ identityUuid });
    const res = await ports.merchants.ensureMember({ merchantUuid, identityUuid, role, actor });
    return { membership: res.membership!, created: res.created, roleChanged: res.roleChanged };
  });
}

/**
 * Removes the identity's membership of the merchant: what the membership gave
 * ends with the person's next request (the gateways read memberships on every
 * request and keep none). The merchants service deletes it and records
 * merchant.member.remove in one transaction; a refusal is recorded here under
 * the same action. 404 MERCHANT_NOT_FOUND for no such merchant,
 * MEMBER_NOT_FOUND when the identity (unknown, malformed uuid) is not one of
 * its members. Answers the membership as it was.
 */
export function removeMember(
  ports: MerchantPorts,
  actor: Actor,
  merchantUuid: string,
  identityUuid: string,
  prepare?: Prepare<void>,
): Promise<merchantsV1.Membership> {
  return audited(ports, actor, { action: "merchant.member.remove", target: { type: "merchant", uuid: merchantUuid }, successRecordedBy: "merchants" }, async () => {
    await prepare?.();
    if (!isUuidAnyCase(identityUuid)) {
      await existingMerchant(ports, merchantUuid);
      throw new ApiError("MEMBER_NOT_FOUND", "member not found");
    }
    const res = await ports.merchants.removeMember({ merchantUuid, identityUuid: identityUuid.toLowerCase(), actor });
    return res.membership!;
  });
}

/**
 * The identity's membership of the merchant: 404 MERCHANT_NOT_FOUND for no such
 * merchant, MEMBER_NOT_FOUND when the identity (unknown, malformed uuid) is not
 * one of its members.
 */
export async function readMember(ports: Pick<ServicePorts, "merchants">, merchantUuid: string, identityUuid: string): Promise<merchantsV1.Membership> {
  const merchant = await existingMerchant(ports, merchantUuid);
  const notFound = () => new ApiError("MEMBER_NOT_FOUND", "member not found");
  if (!isUuidAnyCase(identityUuid)) throw notFound();
  const { memberships } = await ports.merchants.listMemberships({ identityUuid: identityUuid.toLowerCase() });
  const membership = memberships.find((m) => m.merchantUuid === merchant.uuid);
  if (!membership) throw notFound();
  return membership;
}
