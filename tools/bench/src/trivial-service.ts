/**
 * Baseline B2, the far end: a Connect service with nothing but what
 * startRpcServer always registers (grpc.health.v1.Health), behind the same
 * service-token authentication and request-id handling as every service.
 * Sends `{ready, port}` over IPC; ends when its parent goes away.
 */
import { createLogger } from "@payin/logging";
import { startRpcServer } from "@payin/rpc";

const serviceToken = process.env.SERVICE_TOKEN ?? "";
const server = await startRpcServer({
  name: "bench-trivial",
  services: [],
  routes: () => {},
  serviceToken,
  host: "127.0.0.1",
  port: 0,
  logger: createLogger("bench-trivial"),
});
const stop = () => void server.close().then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
process.once("disconnect", stop);
process.send?.({ ready: "bench-trivial", port: server.port });
