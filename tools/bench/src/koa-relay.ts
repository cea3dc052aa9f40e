/**
 * Baseline B2, the near end: a bare Koa app. `GET /call` makes one Connect call
 * (Health.Check) to the trivial service with the project's client
 * (createServiceClient: Connect protocol, binary, HTTP/1.1 keep-alive) and
 * answers with its status; `GET /bare` answers without any call. Sends
 * `{ready, port}` over IPC; ends when its parent goes away.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import Koa from "koa";
import { healthV1 } from "@payin/proto";
import { createServiceClient } from "@payin/rpc";

const health = createServiceClient(healthV1.Health, {
  baseUrl: process.env.TRIVIAL_URL ?? "",
  serviceToken: process.env.SERVICE_CREDENTIAL ?? "",
});
const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path === "/call") {
    const res = await health.check({ service: "" });
    ctx.body = { status: res.status };
  } else {
    ctx.body = { status: "ok" };
  }
});
const server = http.createServer({ keepAliveTimeout: 65_000 }, app.callback());
server.listen(0, "127.0.0.1", () => {
  process.send?.({ ready: "bench-koa", port: (server.address() as AddressInfo).port });
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
process.once("disconnect", stop);
