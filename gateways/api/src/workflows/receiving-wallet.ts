/**
 * The receiving wallet lives in the allocation service, which knows no
 * merchants: the merchant must exist (404) and not be closed (409).
 */
import type { AppDeps } from "../deps.js";
import { openMerchant } from "./merchant-state.js";

export type WalletDeps = Pick<AppDeps, "merchants" | "allocation">;

/** Sets (or replaces, keeping the address counter) the merchant's receiving wallet. */
export async function setReceivingWallet(deps: WalletDeps, merchantUuid: string, xpub: string) {
  const merchant = await openMerchant(deps, merchantUuid);
  return (await deps.allocation.setWallet({ merchantUuid: merchant.uuid, xpub })).wallet!;
}
