/**
 * The receiving wallet lives in the allocation service, which knows no
 * merchants: the merchant must exist (404), and not be closed (409) for a change.
 */
import type { AppDeps } from "../deps.js";
import { existingMerchant, openMerchant } from "./merchant-state.js";

export type WalletDeps = Pick<AppDeps, "merchants" | "allocation">;

/** Sets (or replaces, keeping the address counter) the merchant's receiving wallet. */
export async function setReceivingWallet(deps: WalletDeps, merchantUuid: string, xpub: string) {
  const merchant = await openMerchant(deps, merchantUuid);
  return (await deps.allocation.setWallet({ merchantUuid: merchant.uuid, xpub })).wallet!;
}

/**
 * The merchant's receiving wallet: 404 MERCHANT_NOT_FOUND for no such merchant
 * (closed ones included, their wallet stays readable), 404 WALLET_NOT_FOUND
 * (allocation's answer) when it has none.
 */
export async function readReceivingWallet(deps: WalletDeps, merchantUuid: string) {
  const merchant = await existingMerchant(deps, merchantUuid);
  return (await deps.allocation.getWallet({ merchantUuid: merchant.uuid })).wallet!;
}
