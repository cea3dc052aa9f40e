import type { Client } from "@connectrpc/connect";
import { allocationV1, effectName, merchantStatusName, merchantsV1 } from "@payin/proto";
import { Code, ConnectError } from "@payin/rpc";
import type { AddressAllocator, MerchantDirectory } from "../domain/create-pay-in-intent.js";



/** MerchantDirectory over the merchants service (one call, one SQL statement there). */
export function merchantDirectory(client: Client<typeof merchantsV1.MerchantsService>): MerchantDirectory {
  return {
    async payinContext(merchantUuid, jurisdiction) {
      try {
        const context = await client.getPayinContext({ merchantUuid, jurisdiction });
        return {
          status: merchantStatusName(context.status) ?? "unknown",
          ruleEffect: effectName(context.ruleEffect),
          payinPolicyEffect: effectName(context.payinPolicyEffect),
          operatingMode: context.operatingMode || null,
        };
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.NotFound) return null;
        throw error;
      }
    },
  };
}

/** AddressAllocator over the allocation service. Its errors (WALLET_NOT_READY) pass through. */
export function addressAllocator(client: Client<typeof allocationV1.AllocationService>): AddressAllocator {
  return {
    async allocate(merchantUuid, intentUuid, rail) {
      const res = await client.allocateAddress({ merchantUuid, intentUuid, rail });
      return { address: res.address, reference: res.derivationPath };
    },
  };
}
