import type { KeyObject } from "node:crypto";
import type { ConnectRouter } from "@connectrpc/connect";
import type { ConfigOf } from "@payin/config";
import { migrate, openDatabase, startAuditRelay, type Clock, type Database } from "@payin/db";
import { createLogger, type Logger } from "@payin/logging";
import { allocationV1, merchantsV1 } from "@payin/proto";
import { appendToAuditLog, createServiceClient, domainErrorInterceptor, requestLogFields, serveService, type StartService } from "@payin/rpc";
import { merchantReadinessSource } from "./clients/merchants.js";
import type { configSchema } from "./config.js";
import { WorkerDeriver } from "./derivation/worker-deriver.js";
import type { MerchantReadinessSource } from "./domain/readiness.js";
import type { DeriveRange } from "./domain/wallet.js";
import { allocationHandlers } from "./rpc/allocation-handlers.js";
import { CALLERS } from "./rpc/callers.js";
import { reasonCodes } from "./rpc/reason-codes.js";
import { ormOptions } from "./store/orm.js";

export const SERVICE_NAMES = [allocationV1.AllocationService.typeName];

/** What the allocation service is built from. */
export interface AllocationPorts {
  /** The allocation schema (openDatabase of @payin/db). */
  db: Database;
  logger: Logger;
  /** Answers the merchant's side of readiness. */
  merchants: MerchantReadinessSource;
  /** Derives pool addresses (on the calling thread when not given). */
  deriveRange?: DeriveRange;
  /** How long a rail's observer may go without advancing and still count as observing (OBSERVER_STALL_MS; DEFAULT_OBSERVER_STALL_MS when not given). */
  observerStallMs?: number;
  /** The clock allocations, wallets and readiness read the time from (the system's when not given). */
  clock?: Clock;
  /** Identity's public key (ACTOR_ASSERTION_PUBLIC_KEY): who sets a wallet is checked with it. Without it only provisioners may set wallets. */
  assertionKey?: KeyObject;
}

/** Builds the allocation service from its ports: mountable on a real server (startService) or an in-memory transport (tests). */
export function createAllocationService(ports: AllocationPorts) {
  return (router: ConnectRouter) => {
    router.service(
      allocationV1.AllocationService,
      allocationHandlers(ports.db, ports.logger, ports.merchants, ports.deriveRange, { observerStallMs: ports.observerStallMs, clock: ports.clock, assertionKey: ports.assertionKey }),
    );
  };
}

export type AllocationConfig = ConfigOf<typeof configSchema>;

/** What startService would otherwise make itself. */
export interface AllocationDeps {
  logger?: Logger;
  /** The merchant's side of readiness (default: the merchants service at MERCHANTS_URL). */
  merchants?: MerchantReadinessSource;
  /** The clock allocations, wallets and readiness read the time from. */
  clock?: Clock;
}

/**
 * The allocation service's composition root: migrations (MIGRATE_ON_BOOT), its
 * Database, its client of merchants, address derivation on a worker thread, the RPC
 * server with its callers. (The chain observer is its own process: observer-main.ts.)
 */
export const startService: StartService<AllocationConfig, AllocationDeps> = async (config, deps = {}) => {
  const logger = deps.logger ?? createLogger("allocation", { level: config.LOG_LEVEL, mixin: requestLogFields });
  if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
  const db = await openDatabase(ormOptions(config.DATABASE_URL, config.DB_POOL_MAX));
  const merchantsClient = createServiceClient(merchantsV1.MerchantsService, { baseUrl: config.MERCHANTS_URL, serviceToken: config.SERVICE_CREDENTIAL });
  const merchants = deps.merchants ?? merchantReadinessSource(merchantsClient);
  // The audit records of wallets set and rails resumed go to merchants' log through the outbox (@payin/db, audit-outbox.ts).
  const relay = startAuditRelay({ db, append: appendToAuditLog(merchantsClient), logger });
  const deriver = new WorkerDeriver((error) => logger.error({ err: error }, "address derivation thread failed"));
  return serveService({
    name: "allocation",
    services: SERVICE_NAMES,
    routes: createAllocationService({
      db,
      logger,
      merchants,
      deriveRange: deriver.deriveRange,
      observerStallMs: config.OBSERVER_STALL_MS,
      clock: deps.clock,
      assertionKey: config.ACTOR_ASSERTION_PUBLIC_KEY,
    }),
    interceptors: [domainErrorInterceptor("allocation", reasonCodes, logger)],
    callers: config.SERVICE_CALLER_DIGESTS,
    allow: CALLERS,
    host: config.HOST,
    port: config.ALLOCATION_PORT,
    logger,
    onClose: async () => {
      await relay.stop();
      await deriver.close();
      await db.close();
    },
  });
};
