import type { Client } from "@connectrpc/connect";
import { effectName, merchantStatusName, merchantsV1 } from "@payin/proto";
import { Code, ConnectError } from "@payin/rpc";
import type { MerchantReadinessInputs, MerchantReadinessSource } from "../domain/readiness.js";

/** The merchant's side of readiness over the merchants service (one call, one SQL statement there). */
export function merchantReadinessSource(client: Client<typeof merchantsV1.MerchantsService>): MerchantReadinessSource {
  return {
    async readinessInputs(merchantUuid) {
      try {
        const res = await client.getReadinessInputs({ merchantUuid });
        return {
          // A status this build does not know is not `active`.
          status: (merchantStatusName(res.status) ?? "inactive") as MerchantReadinessInputs["status"],
          payinPolicyEffect: effectName(res.payinPolicyEffect),
          operatingMode: res.operatingMode || null,
          providerConnected: res.payinProviderConnected,
        };
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.NotFound) return null;
        throw error;
      }
    },
  };
}
