import { loadConfig } from "@payin/config";
import { migrate, openOrm } from "@payin/db";
import { createLogger } from "@payin/logging";
import { merchantsV1 } from "@payin/proto";
import { createServiceClient, domainErrorInterceptor, requestLogFields, runService } from "@payin/rpc";
import { merchantReadinessSource } from "./clients/merchants.js";
import { configSchema } from "./config.js";
import { WorkerDeriver } from "./derivation/worker-deriver.js";
import { CALLERS } from "./rpc/callers.js";
import { reasonCodes } from "./rpc/reason-codes.js";
import { createAllocationService, SERVICE_NAMES } from "./service.js";
import { ormOptions } from "./store/orm.js";

const config = loadConfig(configSchema);
const logger = createLogger("allocation", { mixin: requestLogFields });
if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
const orm = await openOrm(ormOptions(config.DATABASE_URL, config.DB_POOL_MAX));
const merchants = createServiceClient(merchantsV1.MerchantsService, { baseUrl: config.MERCHANTS_URL, serviceToken: config.SERVICE_CREDENTIAL });
const deriver = new WorkerDeriver((error) => logger.error({ err: error }, "address derivation thread failed"));
await runService({
  name: "allocation",
  services: SERVICE_NAMES,
  routes: createAllocationService({
    orm,
    logger,
    merchants: merchantReadinessSource(merchants),
    deriveRange: deriver.deriveRange,
    observerStallMs: config.OBSERVER_STALL_MS,
  }),
  interceptors: [domainErrorInterceptor("allocation", reasonCodes, logger)],
  callers: config.SERVICE_CALLER_DIGESTS,
  allow: CALLERS,
  host: config.HOST,
  port: config.ALLOCATION_PORT,
  logger,
  onClose: async () => {
    await deriver.close();
    await orm.close();
  },
});
