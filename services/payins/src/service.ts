import type { Client, ConnectRouter } from "@connectrpc/connect";
import type { ConfigOf } from "@payin/config";
import { migrate, openDatabase, systemClock, type Clock } from "@payin/db";
import { createLogger, oncePerCause, type Logger } from "@payin/logging";
import { allocationV1, merchantsV1, notificationsV1, payinsV1 } from "@payin/proto";
import { createServiceClient, domainErrorInterceptor, requestLogFields, serveService, type StartService } from "@payin/rpc";
import { addressAllocator } from "./clients/allocation.js";
import { merchantDirectory } from "./clients/merchants.js";
import { eventRecorder } from "./clients/notifications.js";
import { startDeadlineScanner } from "./events/deadline-scanner.js";
import { startEventRelay } from "./events/relay.js";
import { followPayinContextFeed, type FeedFollower } from "./clients/payin-context-feed.js";
import type { configSchema } from "./config.js";
import { PayinContextCache } from "./domain/payin-context-cache.js";
import { CALLERS } from "./rpc/callers.js";
import { payinsHandlers, type PayinsDeps } from "./rpc/payins-handlers.js";
import { serviceReasonCodes } from "./rpc/reason-codes.js";
import { ormOptions } from "./store/orm.js";

export const SERVICE_NAMES = [payinsV1.PayinsService.typeName];

/** What the payins service is built from: the database, the logger, the merchant directory, the address allocator and the clock. */
export type PayinsPorts = PayinsDeps;

/** Builds the payins service from its ports: mountable on a real server (startService) or an in-memory transport (tests). */
export function createPayinsService(ports: PayinsPorts) {
  return (router: ConnectRouter) => {
    router.service(payinsV1.PayinsService, payinsHandlers(ports));
  };
}

export type PayinsConfig = ConfigOf<typeof configSchema>;

/** What startService would otherwise make itself. */
export interface PayinsServiceDeps {
  logger?: Logger;
  /** The merchants service (default: a client of MERCHANTS_URL with this service's credential). */
  merchants?: Client<typeof merchantsV1.MerchantsService>;
  /** The allocation service (default: a client of ALLOCATION_URL). */
  allocation?: Client<typeof allocationV1.AllocationService>;
  /** The notifications service, which the event relay hands events to (default: a client of NOTIFICATIONS_URL). */
  notifications?: Client<typeof notificationsV1.NotificationsService>;
  /** The clock creates, observations, checkout sessions and the deadline scan read the time from (default: the system's). */
  clock?: Clock;
}

/**
 * The payins service's composition root: migrations (MIGRATE_ON_BOOT), its Database,
 * its clients of merchants, allocation and notifications, merchants' pay-in
 * contexts kept while their feed is followed, the event relay (the outbox to
 * notifications) and the deadline scan, the RPC server with its callers.
 */
export const startService: StartService<PayinsConfig, PayinsServiceDeps> = async (config, deps = {}) => {
  const logger = deps.logger ?? createLogger("payins", { level: config.LOG_LEVEL, mixin: requestLogFields });
  if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
  const db = await openDatabase(ormOptions(config.DATABASE_URL, config.DB_POOL_MAX));
  const merchants =
    deps.merchants ?? createServiceClient(merchantsV1.MerchantsService, { baseUrl: config.MERCHANTS_URL, serviceToken: config.SERVICE_CREDENTIAL });
  const allocation =
    deps.allocation ?? createServiceClient(allocationV1.AllocationService, { baseUrl: config.ALLOCATION_URL, serviceToken: config.SERVICE_CREDENTIAL });
  const notifications =
    deps.notifications ??
    createServiceClient(notificationsV1.NotificationsService, { baseUrl: config.NOTIFICATIONS_URL, serviceToken: config.SERVICE_CREDENTIAL });
  const relay = startEventRelay({ db, record: eventRecorder(notifications), logger });
  const deadlines = startDeadlineScanner({ db, clock: deps.clock ?? systemClock, logger });
  // Merchants' pay-in contexts, kept while merchants' feed of their changes is followed.
  let feed: FeedFollower | undefined;
  const contexts = new PayinContextCache(merchantDirectory(merchants), {
    ttlMs: config.PAYIN_CONTEXT_CACHE_MS,
    maxEntries: 10_000,
    catchUp: () => feed?.catchUp() ?? Promise.resolve(false),
    onServedKept: oncePerCause(logger, "the merchants service did not answer a pay-in context; a kept answer (not yet expired) was used"),
  });
  if (config.PAYIN_CONTEXT_CACHE_MS > 0) {
    feed = followPayinContextFeed({
      merchants,
      target: contexts,
      onFollowing: () => logger.info("following merchants' pay-in context feed: merchants' pay-in contexts are kept"),
      onCatchUpFailed: oncePerCause(logger, "catching up with merchants' pay-in context feed failed; the merchants service is asked instead"),
      onLost: (error, first) => {
        if (first) {
          logger.warn({ reason: error.message }, "merchants' pay-in context feed unavailable; asking the merchants service on every create (kept answers only when it does not answer, until they expire) until it is back");
        }
      },
    });
  }
  return serveService({
    name: "payins",
    services: SERVICE_NAMES,
    routes: createPayinsService({
      db,
      logger,
      clock: deps.clock,
      merchants: contexts,
      allocator: addressAllocator(allocation),
      rails: config.rails,
      checkoutPaymentWindowS: config.CHECKOUT_PAYMENT_WINDOW_S,
      onEvents: () => relay.wake(),
    }),
    interceptors: [domainErrorInterceptor("payins", serviceReasonCodes, logger)],
    callers: config.SERVICE_CALLER_DIGESTS,
    allow: CALLERS,
    host: config.HOST,
    port: config.PAYINS_PORT,
    logger,
    onClose: async () => {
      await Promise.all([relay.stop(), deadlines.stop()]);
      await feed?.close();
      await db.close();
    },
  });
};
