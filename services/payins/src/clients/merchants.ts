import type { Client } from "@connectrpc/connect";
import { effectName, merchantStatusName, merchantsV1 } from "@payin/proto";
import { Code, coalesce, ConnectError } from "@payin/rpc";
import type { MerchantDirectory, PayinContext } from "../domain/create-pay-in-intent.js";

/**
 * Most calls coalesced into one batch. The creates of one BatchCreatePayInIntents
 * call (at most 1,000) start together, so their downstream calls coalesce too.
 */
const MAX_BATCH = 1000;

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

function unwrap<T>(settled: Settled<T>): T {
  if (!settled.ok) throw settled.error;
  return settled.value;
}

/**
 * MerchantDirectory over the merchants service (one call, one SQL statement
 * there). The lookups made in one turn of the event loop ask once per distinct
 * (merchant, jurisdiction): creates started together for one merchant share
 * one answer, as of one instant.
 */
export function merchantDirectory(client: Client<typeof merchantsV1.MerchantsService>): MerchantDirectory {
  const lookup = async (merchantUuid: string, jurisdiction: string): Promise<PayinContext | null> => {
    try {
      const context = await client.getPayinContext({ merchantUuid, jurisdiction });
      return {
        status: merchantStatusName(context.status) ?? "unknown",
        ruleEffect: effectName(context.ruleEffect),
        payinPolicyEffect: effectName(context.payinPolicyEffect),
        operatingMode: context.operatingMode || null,
        providerConnected: context.payinProviderConnected,
        providerConnectedInJurisdiction: context.payinProviderConnectedInJurisdiction,
      };
    } catch (error) {
      if (error instanceof ConnectError && error.code === Code.NotFound) return null;
      throw error;
    }
  };
  const lookupTogether = coalesce(
    async (keys: { merchantUuid: string; jurisdiction: string }[]) => {
      const asked = new Map<string, Promise<Settled<PayinContext | null>>>();
      return Promise.all(
        keys.map(({ merchantUuid, jurisdiction }) => {
          const id = `${merchantUuid}|${jurisdiction}`;
          let answer = asked.get(id);
          if (!answer) asked.set(id, (answer = settle(lookup(merchantUuid, jurisdiction))));
          return answer;
        }),
      );
    },
    { maxBatch: MAX_BATCH },
  );
  return {
    payinContext: async (merchantUuid, jurisdiction) => unwrap(await lookupTogether({ merchantUuid, jurisdiction })),
  };
}
