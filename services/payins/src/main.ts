import { ConfigError, loadConfig } from "@payin/config";
import { migrate, openOrm } from "@payin/db";
import { createLogger, oncePerCause } from "@payin/logging";
import { payableTermsOf, railsFromEnv } from "@payin/rails";
import { allocationV1, merchantsV1 } from "@payin/proto";
import { createServiceClient, domainErrorInterceptor, requestLogFields, runService } from "@payin/rpc";
import { addressAllocator } from "./clients/allocation.js";
import { merchantDirectory } from "./clients/merchants.js";
import { followPayinContextFeed, type FeedFollower } from "./clients/payin-context-feed.js";
import { configSchema } from "./config.js";
import type { RailMinimums } from "./domain/pay-in-intent.js";
import { PayinContextCache } from "./domain/payin-context-cache.js";
import { CALLERS } from "./rpc/callers.js";
import { serviceReasonCodes } from "./rpc/reason-codes.js";
import { createPayinsService, SERVICE_NAMES } from "./service.js";
import { ormOptions } from "./store/orm.js";

const config = loadConfig(configSchema);
// The rails as the observer reads them (the launcher gives every process one
// environment): an amount below a rail's dust threshold, or finer than its
// token's unit, is refused at creation, since it could never be counted.
let rails: RailMinimums;
try {
  rails = payableTermsOf(railsFromEnv());
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(78);
}
const logger = createLogger("payins", { mixin: requestLogFields });
if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
const orm = await openOrm(ormOptions(config.DATABASE_URL, config.DB_POOL_MAX));
const merchants = createServiceClient(merchantsV1.MerchantsService, { baseUrl: config.MERCHANTS_URL, serviceToken: config.SERVICE_CREDENTIAL });
const allocation = createServiceClient(allocationV1.AllocationService, { baseUrl: config.ALLOCATION_URL, serviceToken: config.SERVICE_CREDENTIAL });
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
await runService({
  name: "payins",
  services: SERVICE_NAMES,
  routes: createPayinsService({
    orm, logger, merchants: contexts, allocator: addressAllocator(allocation), rails, checkoutPaymentWindowS: config.CHECKOUT_PAYMENT_WINDOW_S,
  }),
  interceptors: [domainErrorInterceptor("payins", serviceReasonCodes, logger)],
  callers: config.SERVICE_CALLER_DIGESTS,
  allow: CALLERS,
  host: config.HOST,
  port: config.PAYINS_PORT,
  logger,
  onClose: async () => {
    await feed?.close();
    await orm.close();
  },
});
