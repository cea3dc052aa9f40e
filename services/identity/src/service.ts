import type { ConnectRouter } from "@connectrpc/connect";
import type { ConfigOf } from "@payin/config";
import { migrate, openDatabase, startAuditRelay, type Clock, type Database } from "@payin/db";
import { createLogger, type Logger } from "@payin/logging";
import { identityV1, merchantsV1 } from "@payin/proto";
import { appendToAuditLog, createServiceClient, domainErrorInterceptor, requestLogFields, serveService, type StartService } from "@payin/rpc";
import type { configSchema } from "./config.js";
import { configurePasswordHashing } from "./domain/password.js";
import { saltUnsaltedRecoveryCodes } from "./domain/recovery-codes.js";
import { applyIdlePolicy, applyProcessNice, startThreadPool } from "./priority.js";
import { CALLERS } from "./rpc/callers.js";
import { identityHandlers, type IdentityHandlerOptions } from "./rpc/identity-handlers.js";
import { reasonCodes } from "./rpc/reason-codes.js";
import { IdentityRepository } from "./store/identity-repository.js";
import { ormOptions } from "./store/orm.js";

export const SERVICE_NAMES = [identityV1.IdentityService.typeName];

/** What the identity service is built from: the database, the logger, the TOTP key and the clock. */
export interface IdentityPorts extends IdentityHandlerOptions {
  /** The identity schema (openDatabase of @payin/db). */
  db: Database;
  logger: Logger;
}

/** Builds the identity service from its ports: mountable on a real server (startService) or an in-memory transport (tests). */
export function createIdentityService(ports: IdentityPorts) {
  const { db, logger, ...options } = ports;
  return (router: ConnectRouter) => {
    router.service(identityV1.IdentityService, identityHandlers(db, logger, options));
  };
}

export type IdentityConfig = ConfigOf<typeof configSchema>;

/** What startService would otherwise make itself. */
export interface IdentityDeps {
  logger?: Logger;
  /** The clock sessions, challenges, throttling and credentials read the time from (default: the system's). */
  clock?: Clock;
}

/**
 * The identity service's composition root: the process's priorities, password
 * hashing's concurrency, migrations (MIGRATE_ON_BOOT), its Database, what must be
 * done before serving, the audit outbox's relay (to merchants), then the RPC
 * server with its callers.
 */
export const startService: StartService<IdentityConfig, IdentityDeps> = async (config, deps = {}) => {
  const logger = deps.logger ?? createLogger("identity", { level: config.LOG_LEVEL, mixin: requestLogFields });
  // Sign-ins must not starve the machine's other work (see config.ts): at most
  // ARGON2_CONCURRENCY argon2 operations at once, on pool threads under SCHED_IDLE,
  // and the whole process at a lower priority.
  await startThreadPool();
  applyProcessNice(config.PROCESS_NICE, logger);
  if (config.WORKER_SCHED_IDLE === "true") applyIdlePolicy(logger, { spareMainThread: true });
  configurePasswordHashing({ concurrency: config.ARGON2_CONCURRENCY });
  if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
  const db = await openDatabase(ormOptions(config.DATABASE_URL, config.DB_POOL_MAX));
  try {
    // Before serving: recovery codes stored as a bare SHA-256 get their salt and keyed
    // hash, which only this process can compute (the pepper derives from the TOTP key).
    const salted = await saltUnsaltedRecoveryCodes(new IdentityRepository(db), config.TOTP_ENCRYPTION_KEY);
    if (salted > 0) logger.info({ salted }, "recovery codes salted");
  } catch (error) {
    await db.close();
    throw error;
  }
  const merchants = createServiceClient(merchantsV1.MerchantsService, { baseUrl: config.MERCHANTS_URL, serviceToken: config.SERVICE_CREDENTIAL });
  // Identity's audit records go to merchants' log through its outbox (@payin/db, audit-outbox.ts).
  const relay = startAuditRelay({ db, append: appendToAuditLog(merchants), logger });
  return serveService({
    name: "identity",
    services: SERVICE_NAMES,
    routes: createIdentityService({ db, logger, totpKey: config.TOTP_ENCRYPTION_KEY, clock: deps.clock, ipv6Prefix: config.RATE_LIMIT_IPV6_PREFIX, assertionKey: config.ACTOR_ASSERTION_SIGNING_KEY }),
    interceptors: [domainErrorInterceptor("identity", reasonCodes, logger)],
    callers: config.SERVICE_CALLER_DIGESTS,
    allow: CALLERS,
    host: config.HOST,
    port: config.IDENTITY_PORT,
    logger,
    onClose: async () => {
      await relay.stop();
      await db.close();
    },
  });
};
