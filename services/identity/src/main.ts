import { loadConfig } from "@payin/config";
import { migrate, openOrm } from "@payin/db";
import { createLogger } from "@payin/logging";
import { domainErrorInterceptor, requestLogFields, runService } from "@payin/rpc";
import { configSchema } from "./config.js";
import { configurePasswordHashing } from "./domain/password.js";
import { saltUnsaltedRecoveryCodes } from "./domain/recovery-codes.js";
import { applyIdlePolicy, applyProcessNice, startThreadPool } from "./priority.js";
import { CALLERS } from "./rpc/callers.js";
import { reasonCodes } from "./rpc/reason-codes.js";
import { createIdentityService, SERVICE_NAMES } from "./service.js";
import { IdentityRepository } from "./store/identity-repository.js";
import { ormOptions } from "./store/orm.js";

const config = loadConfig(configSchema);
const logger = createLogger("identity", { mixin: requestLogFields });
// Sign-ins must not starve the machine's other work (see config.ts): at most
// ARGON2_CONCURRENCY argon2 operations at once, on pool threads under SCHED_IDLE,
// and the whole process at a lower priority.
await startThreadPool();
applyProcessNice(config.PROCESS_NICE, logger);
if (config.WORKER_SCHED_IDLE === "true") applyIdlePolicy(logger, { spareMainThread: true });
configurePasswordHashing({ concurrency: config.ARGON2_CONCURRENCY });
if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
const orm = await openOrm(ormOptions(config.DATABASE_URL, config.DB_POOL_MAX));
// Before serving: recovery codes stored as a bare SHA-256 get their salt and keyed
// hash, which only this process can compute (the pepper derives from the TOTP key).
const salted = await saltUnsaltedRecoveryCodes(new IdentityRepository(orm.em.fork()), config.TOTP_ENCRYPTION_KEY);
if (salted > 0) logger.info({ salted }, "recovery codes salted");
await runService({
  name: "identity",
  services: SERVICE_NAMES,
  routes: createIdentityService({ orm, logger, totpKey: config.TOTP_ENCRYPTION_KEY }),
  interceptors: [domainErrorInterceptor("identity", reasonCodes, logger)],
  callers: config.SERVICE_CALLER_DIGESTS,
  allow: CALLERS,
  host: config.HOST,
  port: config.IDENTITY_PORT,
  logger,
  onClose: () => orm.close(),
});
