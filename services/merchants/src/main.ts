import { loadConfig } from "@payin/config";
import { migrate, openOrm } from "@payin/db";
import { createLogger } from "@payin/logging";
import { domainErrorInterceptor, requestLogFields, runService } from "@payin/rpc";
import { configSchema } from "./config.js";
import { CALLERS } from "./rpc/callers.js";
import { reasonCodes } from "./rpc/reason-codes.js";
import { routes, SERVICE_NAMES } from "./routes.js";
import { ormOptions } from "./store/orm.js";

const config = loadConfig(configSchema);
const logger = createLogger("merchants", { mixin: requestLogFields });
if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
const orm = await openOrm(ormOptions(config.DATABASE_URL, config.DB_POOL_MAX));
await runService({
  name: "merchants",
  services: SERVICE_NAMES,
  routes: routes(orm),
  interceptors: [domainErrorInterceptor("merchants", reasonCodes, logger)],
  callers: config.SERVICE_CALLER_DIGESTS,
  allow: CALLERS,
  host: config.HOST,
  port: config.MERCHANTS_PORT,
  logger,
  onClose: () => orm.close(),
});
