import { loadConfig } from "@payin/config";
import { listenForNotifications, migrate, openOrm, PAYIN_CONTEXT_CHANNEL, type NotificationListener } from "@payin/db";
import { createLogger } from "@payin/logging";
import { allocationV1, merchantsV1 } from "@payin/proto";
import { createServiceClient, domainErrorInterceptor, requestLogFields, runService } from "@payin/rpc";
import { configSchema } from "./config.js";
import { PayinContextCache } from "./domain/payin-context-cache.js";
import { addressAllocator, merchantDirectory } from "./rpc/downstream.js";
import { CALLERS } from "./rpc/callers.js";
import { reasonCodes } from "./rpc/reason-codes.js";
import { routes, SERVICE_NAMES } from "./routes.js";
import { verifyMerchantAnnouncements } from "./store/merchant-announcements.js";
import { ormOptions } from "./store/orm.js";

const config = loadConfig(configSchema);
const logger = createLogger("payins", { mixin: requestLogFields });
if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
const orm = await openOrm(ormOptions(config.DATABASE_URL, config.DB_POOL_MAX));
const merchants = createServiceClient(merchantsV1.MerchantsService, { baseUrl: config.MERCHANTS_URL, serviceToken: config.SERVICE_CREDENTIAL });
const allocation = createServiceClient(allocationV1.AllocationService, { baseUrl: config.ALLOCATION_URL, serviceToken: config.SERVICE_CREDENTIAL });
// Merchants' pay-in contexts, kept while the merchants schema's change announcements arrive.
let listener: NotificationListener | undefined;
const contexts = new PayinContextCache(merchantDirectory(merchants), {
  ttlMs: config.PAYIN_CONTEXT_CACHE_MS,
  maxEntries: 10_000,
  catchUp: () => listener?.sync() ?? Promise.resolve(false),
});
if (config.PAYIN_CONTEXT_CACHE_MS > 0) {
  listener = listenForNotifications({
    url: config.DATABASE_URL,
    channel: PAYIN_CONTEXT_CHANNEL,
    applicationName: "payins: merchant changes",
    verify: verifyMerchantAnnouncements,
    onNotification: (payload) => contexts.changed(payload),
    onListening: () => {
      contexts.listening();
      logger.info("merchant change announcements arrive: merchants' pay-in contexts are kept");
    },
    onLost: (error, first) => {
      contexts.lost();
      if (first) {
        logger.warn({ reason: error.message }, "merchant change announcements unavailable; asking the merchants service on every create until they are back");
      }
    },
  });
}
await runService({
  name: "payins",
  services: SERVICE_NAMES,
  routes: routes({ orm, logger, merchants: contexts, allocator: addressAllocator(allocation) }),
  interceptors: [domainErrorInterceptor("payins", reasonCodes, logger)],
  callers: config.SERVICE_CALLER_DIGESTS,
  allow: CALLERS,
  host: config.HOST,
  port: config.PAYINS_PORT,
  logger,
  onClose: async () => {
    await listener?.close();
    await orm.close();
  },
});
