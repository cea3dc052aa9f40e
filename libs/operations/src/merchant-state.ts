/**
 * What is asked of the merchants service before a change in another service
 * (identity, allocation), which knows no merchants.
 */
import type { merchantsV1 } from "@payin/proto";
import type { ServicePorts } from "./ports.js";

export type MerchantLookupPorts = Pick<ServicePorts, "merchants">;

/** The merchant, or 404 MERCHANT_NOT_FOUND (the merchants service's own answer). */
export async function existingMerchant(ports: MerchantLookupPorts, uuid: string): Promise<merchantsV1.Merchant> {
  const res = await ports.merchants.getMerchant({ uuid });
  return res.merchant!;
}

/**
 * The merchant, refusing a closed one with 409 MERCHANT_CLOSED: a closed
 * merchant's configuration is frozen, what other services keep for it (its
 * machine credentials, its receiving wallet) included. The merchants service
 * applies the rule (GetMerchant's require_open); its answer passes on as it is.
 */
export async function openMerchant(ports: MerchantLookupPorts, uuid: string): Promise<merchantsV1.Merchant> {
  const res = await ports.merchants.getMerchant({ uuid, requireOpen: true });
  return res.merchant!;
}
