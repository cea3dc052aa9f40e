import type { Client } from "@connectrpc/connect";
import { allocationV1, effectName, merchantStatusName, merchantsV1 } from "@payin/proto";
import { Code, coalesce, ConnectError, connectErrorOfItem } from "@payin/rpc";
import type { AddressAllocator, MerchantDirectory, PayinContext } from "../domain/create-pay-in-intent.js";

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

/**
 * AddressAllocator over the allocation service. The allocations asked for in
 * one turn of the event loop go in one BatchAllocateAddresses call; each fails
 * or succeeds exactly as its own AllocateAddress call would (WALLET_NOT_READY
 * passes through).
 */
export function addressAllocator(client: Client<typeof allocationV1.AllocationService>): AddressAllocator {
  const allocateTogether = coalesce(
    async (requests: { merchantUuid: string; intentUuid: string; rail: string }[]) => (await client.batchAllocateAddresses({ requests })).results,
    { maxBatch: MAX_BATCH },
  );
  return {
    async allocate(merchantUuid, intentUuid, rail) {
      const { outcome } = await allocateTogether({ merchantUuid, intentUuid, rail });
      if (outcome.case === "error") throw connectErrorOfItem(outcome.value);
      if (outcome.case !== "allocated") throw new Error("allocation answered an allocation with no outcome");
      return { address: outcome.value.address, reference: outcome.value.derivationPath };
    },
  };
}
