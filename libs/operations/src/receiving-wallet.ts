/**
 * The receiving wallet lives in the allocation service, which knows no
 * merchants: the merchant must exist (404), and not be closed (409) for a
 * change; allocation records the change itself (its audit outbox), refusals
 * are recorded here.
 */
import type { allocationV1 } from "@payin/proto";
import { audited, type Actor, type AuditPorts } from "./audit.js";
import { existingMerchant, openMerchant } from "./merchant-state.js";
import type { Prepare, ServicePorts } from "./ports.js";

/**
 * How long a wallet set may take: allocation derives the first pool of
 * addresses before it answers, which takes seconds on a busy machine, longer
 * than the default deadline of an internal call.
 */
export const WALLET_SET_TIMEOUT_MS = 30_000;

export type WalletPorts = Pick<ServicePorts, "merchants" | "allocation">;

/** Sets (or replaces, keeping the address counter) the merchant's receiving wallet. */
export function setReceivingWallet(ports: WalletPorts & AuditPorts, actor: Actor, merchantUuid: string, prepare: Prepare<{ xpub: string }>): Promise<allocationV1.Wallet> {
  return audited(ports, actor, { action: "wallet.set", target: { type: "merchant", uuid: merchantUuid }, successRecordedBy: "allocation" }, async () => {
    const { xpub } = await prepare();
    const merchant = await openMerchant(ports, merchantUuid);
    // Allocation checks the person itself (permission, recent second factor) from identity's assertion.
    const request = { merchantUuid: merchant.uuid, xpub, actorAssertion: actor.assertion };
    return (await ports.allocation.setWallet(request, { timeoutMs: WALLET_SET_TIMEOUT_MS })).wallet!;
  });
}

/**
 * The merchant's receiving wallet: 404 MERCHANT_NOT_FOUND for no such merchant
 * (closed ones included, their wallet stays readable), 404 WALLET_NOT_FOUND
 * (allocation's answer) when it has none.
 */
export async function readReceivingWallet(ports: WalletPorts, merchantUuid: string): Promise<allocationV1.Wallet> {
  const merchant = await existingMerchant(ports, merchantUuid);
  return (await ports.allocation.getWallet({ merchantUuid: merchant.uuid })).wallet!;
}
