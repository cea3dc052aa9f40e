import http from "node:http";
import { Redis } from "ioredis";
import { ConfigError, loadConfig, localServiceHost } from "@payin/config";
import { clientAddressOf, clientErrorHandler } from "@payin/http";
import { createLogger } from "@payin/logging";
import { allocationV1, identityV1, merchantsV1, notificationsV1, payinsV1 } from "@payin/proto";
import { railsFromEnv } from "@payin/rails";
import { createServiceClient, requestLogFields } from "@payin/rpc";
import { createApp } from "./app.js";
import { configSchema } from "./config.js";
import { RateLimits, REDIS_CLIENT_OPTIONS } from "./http/rate-limit.js";
import { createViews } from "./views.js";

const config = loadConfig(configSchema);
const rails = loadRails();
const logger = createLogger("checkout", { mixin: requestLogFields });
const client = <S extends Parameters<typeof createServiceClient>[0]>(service: S, baseUrl: string) =>
  createServiceClient(service, { baseUrl, serviceToken: config.SERVICE_CREDENTIAL });
const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { ...REDIS_CLIENT_OPTIONS, lazyConnect: false }) : undefined;
// A Redis outage is logged, not fatal: the limits fall back to memory meanwhile (RateLimits).
redis?.on("error", (error: Error) => logger.warn({ err: { message: error.message } }, "redis unavailable; rate limits counted in memory meanwhile"));
const app = createApp({
  logger,
  views: createViews(),
  rateLimits: new RateLimits(
    {
      publicPerIp: config.RATE_LIMIT_PUBLIC_PER_IP,
      publicPerToken: config.RATE_LIMIT_PUBLIC_PER_TOKEN,
      checkoutCreate: config.RATE_LIMIT_CHECKOUT_CREATE,
      windowS: config.RATE_LIMIT_WINDOW_S,
      keyPrefix: config.RATE_LIMIT_KEY_PREFIX,
      ipv6Prefix: config.RATE_LIMIT_IPV6_PREFIX,
    },
    redis,
  ),
  rails,
  publicUrl: (config.CHECKOUT_PUBLIC_URL ?? `http://${localServiceHost(process.env)}:${config.CHECKOUT_PORT}`).replace(/\/+$/, ""),
  payins: client(payinsV1.PayinsService, config.PAYINS_URL),
  identity: client(identityV1.IdentityService, config.IDENTITY_URL),
  merchants: client(merchantsV1.MerchantsService, config.MERCHANTS_URL),
  allocation: client(allocationV1.AllocationService, config.ALLOCATION_URL),
  notifications: client(notificationsV1.NotificationsService, config.NOTIFICATIONS_URL),
  clientAddress: clientAddressOf(config.TRUSTED_PROXIES),
  now: () => new Date(),
});

const server = http.createServer({ keepAliveTimeout: 65_000, requestTimeout: 30_000 }, app.callback());
server.on("clientError", clientErrorHandler(logger));
server.listen(config.CHECKOUT_PORT, config.HOST, () => {
  const { port } = server.address() as import("node:net").AddressInfo;
  logger.info({ port }, "checkout gateway listening");
  if (process.send) {
    process.once("disconnect", () => stop());
    process.send({ ready: "checkout", port });
  }
});

/** The rails' chain ids and token contracts (what the payer is shown); a bad setting stops the process with one line. */
function loadRails() {
  try {
    return railsFromEnv(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(78);
  }
}

function stop(): void {
  server.close(() => {
    redis?.disconnect();
    process.exit(0);
  });
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 5_000).unref();
}
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
