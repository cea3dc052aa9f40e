import { DomainError } from "@payin/errors";
import { isMerchantRole, MERCHANT_ROLES, type MerchantRole } from "@payin/permissions";
import { optionalActor, type ActorInput } from "./audit.js";
import { requireMerchant } from "./merchant.js";
import { MerchantsReason } from "./reasons.js";
import { recordChange, type Deps } from "./unit-of-work.js";
import { checkMerchantUuid, checkUuid, invalid } from "./validation.js";

/** An identity attached to a merchant. At most one per (merchant, identity). */
export interface Membership {
  merchantUuid: string;
  identityUuid: string;
  createdAt: Date;
  /**
   * The member's role for this merchant; null when the membership names none
   * (the identity's own merchant roles then decide, @payin/permissions'
   * permissionsForMerchant).
   */
  role: MerchantRole | null;
}

/** Storage of memberships. */
export interface MembershipStore {
  /** Inserts unless the pair exists (never fails on a duplicate); true when inserted. */
  insertIfAbsent(membership: Membership): Promise<boolean>;
  find(merchantUuid: string, identityUuid: string): Promise<Membership | null>;
  /** Sets the role of an existing membership unless it already has it; the changed membership, or null when nothing changed. */
  changeRole(merchantUuid: string, identityUuid: string, role: MerchantRole): Promise<Membership | null>;
  /** Deletes the membership; the deleted one, or null when there was none. */
  delete(merchantUuid: string, identityUuid: string): Promise<Membership | null>;
  /** Every membership of an identity, oldest first. */
  listByIdentity(identityUuid: string): Promise<Membership[]>;
}

/** A role as a request names it: absent stays absent; anything but a merchant role is INVALID_ARGUMENT. */
function checkRole(role: string | undefined): MerchantRole | undefined {
  if (role === undefined) return undefined;
  if (!isMerchantRole(role)) invalid(`role must be one of: ${MERCHANT_ROLES.join(", ")}`);
  return role;
}

/**
 * Attaches an identity to a merchant; idempotent, so a repeat (or a concurrent
 * twin) answers the existing membership with `created: false`. A repeat naming
 * another role changes the membership's role (`roleChanged`, audited as
 * merchant.member.role_change); one naming no role changes nothing. Whether the
 * identity exists is the caller's check (identities live in another service).
 * A closed merchant still accepts members: it stays readable, and reading its
 * history is what a member of a closed merchant does.
 */
export async function ensureMember(
  deps: Deps,
  input: { merchantUuid: string; identityUuid: string; role?: string; actor?: ActorInput },
): Promise<{ membership: Membership; created: boolean; roleChanged: boolean }> {
  const identityUuid = checkUuid("identity_uuid", input.identityUuid);
  const role = checkRole(input.role);
  const actor = optionalActor(input.actor);
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  return deps.uow.transaction(async (stores) => {
    await requireMerchant(stores, merchantUuid);
    const candidate: Membership = { merchantUuid, identityUuid, createdAt: deps.now(), role: role ?? null };
    if (await stores.memberships.insertIfAbsent(candidate)) {
      await recordChange(stores, deps, actor, { action: "merchant.member.attach", targetType: "merchant", targetUuid: merchantUuid });
      return { membership: candidate, created: true, roleChanged: false };
    }
    if (role !== undefined) {
      const changed = await stores.memberships.changeRole(merchantUuid, identityUuid, role);
      if (changed) {
        await recordChange(stores, deps, actor, { action: "merchant.member.role_change", targetType: "merchant", targetUuid: merchantUuid });
        return { membership: changed, created: false, roleChanged: true };
      }
    }
    const existing = await stores.memberships.find(merchantUuid, identityUuid);
    if (!existing) throw new Error("membership vanished after a conflicting insert");
    return { membership: existing, created: false, roleChanged: false };
  });
}

/**
 * Removes an identity's membership of a merchant, and records
 * merchant.member.remove in the same transaction (when the request names an
 * actor): both commit, or neither. MERCHANT_NOT_FOUND for an unknown merchant,
 * MEMBER_NOT_FOUND when the identity is not its member. Closed merchants
 * included. Answers the membership as it was.
 */
export async function removeMember(deps: Deps, input: { merchantUuid: string; identityUuid: string; actor?: ActorInput }): Promise<Membership> {
  const identityUuid = checkUuid("identity_uuid", input.identityUuid);
  const actor = optionalActor(input.actor);
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  return deps.uow.transaction(async (stores) => {
    await requireMerchant(stores, merchantUuid);
    const removed = await stores.memberships.delete(merchantUuid, identityUuid);
    if (!removed) throw new DomainError(MerchantsReason.MemberNotFound, "the identity is not a member of the merchant");
    await recordChange(stores, deps, actor, { action: "merchant.member.remove", targetType: "merchant", targetUuid: merchantUuid });
    return removed;
  });
}

/** The merchants an identity is a member of, each with its role there. */
export async function listMemberships(store: MembershipStore, identityUuid: string): Promise<Membership[]> {
  return store.listByIdentity(checkUuid("identity_uuid", identityUuid));
}
