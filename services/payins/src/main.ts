import { loadConfig } from "@payin/config";
import { migrate, openOrm } from "@payin/db";
import { createLogger } from "@payin/logging";
import { allocationV1, merchantsV1 } from "@payin/proto";
import { createServiceClient, domainErrorInterceptor, requestLogFields, runService } from "@payin/rpc";
import { configSchema } from "./config.js";
import { addressAllocator, merchantDirectory } from "./rpc/downstream.js";
import { reasonCodes } from "./rpc/reason-codes.js";
import { routes, SERVICE_NAMES } from "./routes.js";
import { ormOptions } from "./store/orm.js";

const config = loadConfig(configSchema);
const logger = createLogger("payins", { mixin: requestLogFields });
if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
const orm = await openOrm(ormOptions(config.DATABASE_URL, config.DB_POOL_MAX));
const merchants = createServiceClient(merchantsV1.MerchantsService, { baseUrl: config.MERCHANTS_URL, serviceToken: config.SERVICE_TOKEN });
const allocation = createServiceClient(allocationV1.AllocationService, { baseUrl: config.ALLOCATION_URL, serviceToken: config.SERVICE_TOKEN });
await runService({
  name: "payins",
  services: SERVICE_NAMES,
  routes: routes({ orm, logger, merchants: merchantDirectory(merchants), allocator: addressAllocator(allocation) }),
  interceptors: [domainErrorInterceptor("payins", reasonCodes, logger)],
  serviceToken: config.SERVICE_TOKEN,
  host: config.HOST,
  port: config.PAYINS_PORT,
  logger,
  onClose: () => orm.close(),
});
