import type { Client } from "@connectrpc/connect";
import { effectName, merchantStatusName, merchantsV1 } from "@payin/proto";
import { Code, ConnectError } from "@payin/rpc";
import type { MerchantReadinessSource } from "../domain/readiness.js";

/**
 * The merchant's side of readiness over the merchants service: its pay-in
 * context (one call, one SQL statement there), the answer payins decides a
 * create from, for the jurisdiction asked (empty: merchant-wide).
 */
export function merchantReadinessSource(client: Client<typeof merchantsV1.MerchantsService>): MerchantReadinessSource {
  return {
    async readinessInputs(merchantUuid, jurisdiction) {
      try {
        const res = await client.getPayinContext({ merchantUuid, jurisdiction: jurisdiction ?? "" });
        return {
          // A status this build does not know is not `active`.
          status: merchantStatusName(res.status) ?? "unknown",
          payinPolicyEffect: effectName(res.payinPolicyEffect),
          operatingMode: res.operatingMode || null,
          ruleEffect: effectName(res.ruleEffect),
          providerConnected: res.payinProviderConnected,
          providerConnectedInJurisdiction: res.payinProviderConnectedInJurisdiction,
        };
      } catch (error) {
        if (error instanceof ConnectError && error.code === Code.NotFound) return null;
        throw error;
      }
    },
  };
}
