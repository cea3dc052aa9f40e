import { loadConfig } from "@payin/config";
import { migrate, openOrm } from "@payin/db";
import { createLogger } from "@payin/logging";
import { domainErrorInterceptor, requestLogFields, runService } from "@payin/rpc";
import { configSchema } from "./config.js";
import { CALLERS } from "./rpc/callers.js";
import { reasonCodes } from "./rpc/reason-codes.js";
import { createMerchantsService, SERVICE_NAMES } from "./service.js";
import { PayinContextFeed } from "./store/payin-context-feed.js";
import { ormOptions } from "./store/orm.js";

const config = loadConfig(configSchema);
const logger = createLogger("merchants", { mixin: requestLogFields });
if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
const orm = await openOrm(ormOptions(config.DATABASE_URL, config.DB_POOL_MAX));
// The feed of changes to pay-in contexts (WatchPayinContextChanges), from this schema's own announcements.
const feed = new PayinContextFeed({
  url: config.DATABASE_URL,
  onListening: () => logger.info("pay-in context feed live"),
  onLost: (error, first) => {
    if (first) logger.warn({ reason: error.message }, "pay-in context feed interrupted; its followers keep nothing until it is back");
  },
});
await runService({
  name: "merchants",
  services: SERVICE_NAMES,
  routes: createMerchantsService({ orm, feed }),
  interceptors: [domainErrorInterceptor("merchants", reasonCodes, logger)],
  callers: config.SERVICE_CALLER_DIGESTS,
  allow: CALLERS,
  host: config.HOST,
  port: config.MERCHANTS_PORT,
  logger,
  onStopping: () => feed.close(),
  onClose: () => orm.close(),
});
