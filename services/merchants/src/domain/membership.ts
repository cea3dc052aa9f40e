import { optionalActor, type ActorInput } from "./audit.js";
import { requireMerchant } from "./merchant.js";
import { recordChange, type Deps } from "./unit-of-work.js";
import { checkMerchantUuid, checkUuid } from "./validation.js";

/** An identity attached to a merchant. At most one per (merchant, identity). */
export interface Membership {
  merchantUuid: string;
  identityUuid: string;
  createdAt: Date;
}

/** Storage of memberships. */
export interface MembershipStore {
  /** Inserts unless the pair exists (never fails on a duplicate); true when inserted. */
  insertIfAbsent(membership: Membership): Promise<boolean>;
  find(merchantUuid: string, identityUuid: string): Promise<Membership | null>;
  /** Every membership of an identity, oldest first. */
  listByIdentity(identityUuid: string): Promise<Membership[]>;
}

/**
 * Attaches an identity to a merchant; idempotent, so a repeat (or a concurrent
 * twin) answers the existing membership with `created: false`. Whether the
 * identity exists is the caller's check (identities live in another service).
 * A closed merchant still accepts members: it stays readable, and reading its
 * history is what a member of a closed merchant does.
 */
export async function ensureMember(
  deps: Deps,
  input: { merchantUuid: string; identityUuid: string; actor?: ActorInput },
): Promise<{ membership: Membership; created: boolean }> {
  const identityUuid = checkUuid("identity_uuid", input.identityUuid);
  const actor = optionalActor(input.actor);
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  return deps.uow.transaction(async (stores) => {
    await requireMerchant(stores, merchantUuid);
    const candidate: Membership = { merchantUuid, identityUuid, createdAt: deps.now() };
    if (await stores.memberships.insertIfAbsent(candidate)) {
      await recordChange(stores, deps, actor, { action: "merchant.member.attach", targetType: "merchant", targetUuid: merchantUuid });
      return { membership: candidate, created: true };
    }
    const existing = await stores.memberships.find(merchantUuid, identityUuid);
    if (!existing) throw new Error("membership vanished after a conflicting insert");
    return { membership: existing, created: false };
  });
}

/** The merchants an identity is a member of. */
export async function listMemberships(store: MembershipStore, identityUuid: string): Promise<Membership[]> {
  return store.listByIdentity(checkUuid("identity_uuid", identityUuid));
}
