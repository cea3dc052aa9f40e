import type { Client } from "@connectrpc/connect";
import { allocationV1 } from "@payin/proto";
import { coalesce, connectErrorOfItem } from "@payin/rpc";
import type { AddressAllocator } from "../domain/create-pay-in-intent.js";

/**
 * Most calls coalesced into one batch. The creates of one BatchCreatePayInIntents
 * call (at most 1,000) start together, so their downstream calls coalesce too.
 */
const MAX_BATCH = 1000;

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
