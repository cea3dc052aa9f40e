import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { optionalActor, type ActorInput } from "./audit.js";
import { getMerchant, requireOpenMerchant } from "./merchant.js";
import { MerchantsReason } from "./reasons.js";
import { recordChange, type Deps, type MerchantsStores } from "./unit-of-work.js";
import { checkEffect, checkMerchantUuid, invalid } from "./validation.js";
import { nextVersion, withVersionRetry, type Versioned } from "./versioning.js";

export type PolicyScope = "payin" | "payout" | "custody" | "settlement";
export const POLICY_SCOPES: readonly PolicyScope[] = ["payin", "payout", "custody", "settlement"];

/** One version of a merchant's financial policy for a scope. */
export interface Policy extends Versioned {
  policyUuid: string;
  merchantUuid: string;
  scope: PolicyScope;
}

/** Storage of policy versions. */
export interface PolicyStore {
  /** Serialises writers of (merchant, scope) until the transaction ends and returns the open version. */
  lockOpen(merchantUuid: string, scope: PolicyScope): Promise<Policy | null>;
  close(policyUuid: string, at: Date): Promise<void>;
  /** Throws ConcurrentVersionWrite when a unique index refuses the version. */
  insert(policy: Policy): Promise<void>;
  /** The merchant's policy version with the uuid; null for another merchant's. */
  find(merchantUuid: string, policyUuid: string): Promise<Policy | null>;
}

/**
 * Closes the merchant's open policy for the scope and opens the next version,
 * in one transaction, auditing it as `policy.create`. POLICY_UNCHANGED when the
 * open version already has that effect; MERCHANT_CLOSED for a closed merchant.
 */
export async function createPolicy(
  deps: Deps,
  input: { merchantUuid: string; scope: string; effect: string; actor?: ActorInput },
): Promise<Policy> {
  if (!(POLICY_SCOPES as readonly string[]).includes(input.scope)) invalid(`scope must be one of: ${POLICY_SCOPES.join(", ")}`);
  const scope = input.scope as PolicyScope;
  const effect = checkEffect(input.effect);
  const actor = optionalActor(input.actor);
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  return withVersionRetry(() =>
    deps.uow.transaction(async (stores) => {
      await requireOpenMerchant(stores, merchantUuid);
      const open = await stores.policies.lockOpen(merchantUuid, scope);
      const next = nextVersion(
        open,
        effect,
        deps.now(),
        () => new DomainError(MerchantsReason.PolicyUnchanged, `the open ${scope} policy is already ${effect}`),
      );
      if (open) await stores.policies.close(open.policyUuid, next.validFrom);
      const policy: Policy = { policyUuid: deps.newUuid(), merchantUuid, scope, effect, ...next, validTo: null };
      await stores.policies.insert(policy);
      await recordChange(stores, deps, actor, { action: "policy.create", targetType: "policy", targetUuid: policy.policyUuid });
      return policy;
    }),
  );
}

/**
 * One of the merchant's policy versions, open or closed, closed merchants
 * included. MERCHANT_NOT_FOUND for an unknown or malformed merchant uuid;
 * POLICY_NOT_FOUND for an unknown or malformed policy uuid, or another merchant's.
 */
export async function getPolicy(stores: MerchantsStores, input: { merchantUuid: string; policyUuid: string }): Promise<Policy> {
  const merchant = await getMerchant(stores.merchants, checkMerchantUuid(input.merchantUuid));
  const policy = isUuid(input.policyUuid) ? await stores.policies.find(merchant.uuid, input.policyUuid) : null;
  if (!policy) throw new DomainError(MerchantsReason.PolicyNotFound, "policy not found");
  return policy;
}
