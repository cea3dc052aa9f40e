import http from "node:http";
import { loadConfig } from "@payin/config";
import { createLogger } from "@payin/logging";
import { allocationV1, identityV1, merchantsV1, notificationsV1, payinsV1 } from "@payin/proto";
import { createServiceClient, requestLogFields } from "@payin/rpc";
import { createApp } from "./app.js";
import { Authenticator } from "./auth/authenticator.js";
import { configSchema } from "./config.js";
import { clientAddressOf, clientErrorHandler } from "@payin/http";

const config = loadConfig(configSchema);
const logger = createLogger("api", { mixin: requestLogFields });
const identity = createServiceClient(identityV1.IdentityService, { baseUrl: config.IDENTITY_URL, serviceToken: config.SERVICE_CREDENTIAL });
const payins = createServiceClient(payinsV1.PayinsService, { baseUrl: config.PAYINS_URL, serviceToken: config.SERVICE_CREDENTIAL });
const merchants = createServiceClient(merchantsV1.MerchantsService, { baseUrl: config.MERCHANTS_URL, serviceToken: config.SERVICE_CREDENTIAL });
const allocation = createServiceClient(allocationV1.AllocationService, { baseUrl: config.ALLOCATION_URL, serviceToken: config.SERVICE_CREDENTIAL });
const notifications = createServiceClient(notificationsV1.NotificationsService, { baseUrl: config.NOTIFICATIONS_URL, serviceToken: config.SERVICE_CREDENTIAL });
const app = createApp({
  logger,
  auth: new Authenticator(identity, config.AUTH_CACHE_TTL_MS),
  payins,
  identity,
  merchants,
  allocation,
  notifications,
  clientAddress: clientAddressOf(config.TRUSTED_PROXIES),
});

const server = http.createServer({ keepAliveTimeout: 65_000, requestTimeout: 30_000 }, app.callback());
// Requests the HTTP parser refuses never reach Koa: answer them with the error body too.
server.on("clientError", clientErrorHandler(logger));
server.listen(config.API_PORT, config.HOST, () => {
  const { port } = server.address() as import("node:net").AddressInfo;
  logger.info({ port }, "api gateway listening");
  if (process.send) {
    process.once("disconnect", () => stop());
    process.send({ ready: "api", port });
  }
});

function stop(): void {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  setTimeout(() => process.exit(0), 5_000).unref();
}
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
