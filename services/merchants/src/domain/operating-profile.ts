import { optionalActor, type ActorInput } from "./audit.js";
import { requireOpenMerchant } from "./merchant.js";
import { recordChange, type Deps } from "./unit-of-work.js";
import { checkMerchantUuid, invalid } from "./validation.js";

export type OperatingMode = "non_custodial" | "platform_custody" | "hybrid";
export const OPERATING_MODES: readonly OperatingMode[] = ["non_custodial", "platform_custody", "hybrid"];

/** How the platform operates for a merchant; at most one per merchant. */
export interface OperatingProfile {
  merchantUuid: string;
  operatingMode: OperatingMode;
  createdAt: Date;
  updatedAt: Date;
}

/** Storage of operating profiles. */
export interface OperatingProfileStore {
  /**
   * Creates the profile or sets its mode. `changed` is false when the profile
   * already had that mode (nothing was written).
   */
  upsert(merchantUuid: string, mode: OperatingMode, at: Date): Promise<{ profile: OperatingProfile; changed: boolean }>;
}

/**
 * Sets the merchant's operating profile; idempotent. Audited as
 * `merchant.operating_profile.ensure` only when something changed.
 * MERCHANT_CLOSED for a closed merchant.
 */
export async function ensureOperatingProfile(
  deps: Deps,
  input: { merchantUuid: string; operatingMode: string; actor?: ActorInput },
): Promise<OperatingProfile> {
  if (!(OPERATING_MODES as readonly string[]).includes(input.operatingMode)) {
    invalid(`operating_mode must be one of: ${OPERATING_MODES.join(", ")}`);
  }
  const mode = input.operatingMode as OperatingMode;
  const actor = optionalActor(input.actor);
  const merchantUuid = checkMerchantUuid(input.merchantUuid);
  return deps.uow.transaction(async (stores) => {
    await requireOpenMerchant(stores, merchantUuid);
    const { profile, changed } = await stores.profiles.upsert(merchantUuid, mode, deps.now());
    if (changed) {
      await recordChange(stores, deps, actor, {
        action: "merchant.operating_profile.ensure",
        targetType: "merchant",
        targetUuid: merchantUuid,
      });
    }
    return profile;
  });
}
