/**
 * What the gateway asks the merchants service before a change in another
 * service (identity, allocation), which knows no merchants.
 */
import { ApiError } from "@payin/http";
import { merchantsV1 } from "@payin/proto";
import type { AppDeps } from "../deps.js";

export type MerchantLookupDeps = Pick<AppDeps, "merchants">;

/** The merchant, or 404 MERCHANT_NOT_FOUND (the merchants service's own answer). */
export async function existingMerchant(deps: MerchantLookupDeps, uuid: string): Promise<merchantsV1.Merchant> {
  const res = await deps.merchants.getMerchant({ uuid });
  return res.merchant!;
}

/**
 * The merchant, refusing a closed one with 409 MERCHANT_CLOSED: a closed
 * merchant's configuration is frozen. The merchants service applies the same
 * rule to what it keeps; this is the rule for what other services keep for a
 * merchant (its machine credentials, its receiving wallet), named once here.
 */
export async function openMerchant(deps: MerchantLookupDeps, uuid: string): Promise<merchantsV1.Merchant> {
  const merchant = await existingMerchant(deps, uuid);
  if (merchant.status === merchantsV1.MerchantStatus.CLOSED) {
    throw new ApiError("MERCHANT_CLOSED", "the merchant is closed; its configuration can no longer change");
  }
  return merchant;
}
