import type { KeyObject } from "node:crypto";
import type { ConnectRouter } from "@connectrpc/connect";
import type { ConfigOf } from "@payin/config";
import { migrate, openDatabase, type Clock, type Database } from "@payin/db";
import { createLogger, type Logger } from "@payin/logging";
import { merchantsV1 } from "@payin/proto";
import { domainErrorInterceptor, requestLogFields, serveService, type StartService } from "@payin/rpc";
import type { configSchema } from "./config.js";
import { CALLERS } from "./rpc/callers.js";
import { merchantsHandlers } from "./rpc/merchants-handlers.js";
import { reasonCodes } from "./rpc/reason-codes.js";
import { ormOptions } from "./store/orm.js";
import { PayinContextFeed } from "./store/payin-context-feed.js";

export const SERVICE_NAMES = [merchantsV1.MerchantsService.typeName];

/** What the merchants service is built from. */
export interface MerchantsPorts {
  /** The merchants schema (openDatabase of @payin/db). */
  db: Database;
  /** Serves the pay-in context feed (absent: its RPCs answer UNAVAILABLE). */
  feed?: PayinContextFeed;
  /** What every instant written is read from (the system's clock when not given). */
  clock?: Clock;
  /** Identity's public key, which every change's actor assertion is verified with (ACTOR_ASSERTION_PUBLIC_KEY). */
  assertionKey: KeyObject;
}

/** Builds the merchants service from its ports: mountable on a real server (startService) or an in-memory transport (tests). */
export function createMerchantsService(ports: MerchantsPorts) {
  return (router: ConnectRouter) => {
    router.service(merchantsV1.MerchantsService, merchantsHandlers(ports.db, { feed: ports.feed, clock: ports.clock, assertionKey: ports.assertionKey }));
  };
}

export type MerchantsConfig = ConfigOf<typeof configSchema>;

/** What startService would otherwise make itself. */
export interface MerchantsDeps {
  logger?: Logger;
  /** The clock every instant written is read from (default: the system's). */
  clock?: Clock;
}

/**
 * The merchants service's composition root: migrations (MIGRATE_ON_BOOT), its
 * Database, the feed of changes to pay-in contexts, the RPC server with its callers.
 */
export const startService: StartService<MerchantsConfig, MerchantsDeps> = async (config, deps = {}) => {
  const logger = deps.logger ?? createLogger("merchants", { level: config.LOG_LEVEL, mixin: requestLogFields });
  if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
  const db = await openDatabase(ormOptions(config.DATABASE_URL, config.DB_POOL_MAX));
  // The feed of changes to pay-in contexts (WatchPayinContextChanges), from this schema's own announcements.
  const feed = new PayinContextFeed({
    url: config.DATABASE_URL,
    onListening: () => logger.info("pay-in context feed live"),
    onLost: (error, first) => {
      if (first) logger.warn({ reason: error.message }, "pay-in context feed interrupted; its followers keep nothing until it is back");
    },
  });
  return serveService({
    name: "merchants",
    services: SERVICE_NAMES,
    routes: createMerchantsService({ db, feed, clock: deps.clock, assertionKey: config.ACTOR_ASSERTION_PUBLIC_KEY }),
    interceptors: [domainErrorInterceptor("merchants", reasonCodes, logger)],
    callers: config.SERVICE_CALLER_DIGESTS,
    allow: CALLERS,
    host: config.HOST,
    port: config.MERCHANTS_PORT,
    logger,
    onStopping: () => feed.close(),
    onClose: () => db.close(),
  });
};
