import type { ConnectRouter } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import type { Logger } from "@payin/logging";
import { allocationV1 } from "@payin/proto";
import { DEFAULT_OBSERVER_STALL_MS, type MerchantReadinessSource } from "./domain/readiness.js";
import type { DeriveRange } from "./domain/wallet.js";
import { allocationHandlers } from "./rpc/allocation-handlers.js";

export const SERVICE_NAMES = [allocationV1.AllocationService.typeName];

/** What the allocation service is built from. */
export interface AllocationPorts {
  orm: MikroORM;
  logger: Logger;
  /** Answers the merchant's side of readiness. */
  merchants: MerchantReadinessSource;
  /** Derives pool addresses (on the calling thread when not given). */
  deriveRange?: DeriveRange;
  /** How long a rail's observer may go without advancing and still count as observing (OBSERVER_STALL_MS; DEFAULT_OBSERVER_STALL_MS when not given). */
  observerStallMs?: number;
  /** The clock readiness judges the observer's progress by (the system's when not given). */
  now?: () => Date;
}

/** Builds the allocation service from its ports: mountable on a real server (main.ts) or an in-memory transport (tests). */
export function createAllocationService(ports: AllocationPorts) {
  return (router: ConnectRouter) => {
    router.service(
      allocationV1.AllocationService,
      allocationHandlers(ports.orm, ports.logger, ports.merchants, ports.deriveRange, {
        observerStallMs: ports.observerStallMs ?? DEFAULT_OBSERVER_STALL_MS,
        now: ports.now ?? (() => new Date()),
      }),
    );
  };
}
