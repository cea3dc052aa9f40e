/**
 * What the gateway asks the merchants service before a change in another
 * service (identity, allocation), which knows no merchants.
 */
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
 * merchant's configuration is frozen, what other services keep for it (its
 * machine credentials, its receiving wallet) included. The merchants service
 * applies the rule (GetMerchant's require_open); its answer passes on as it is.
 */
export async function openMerchant(deps: MerchantLookupDeps, uuid: string): Promise<merchantsV1.Merchant> {
  const res = await deps.merchants.getMerchant({ uuid, requireOpen: true });
  return res.merchant!;
}
