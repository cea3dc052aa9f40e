/**
 * Baseline B2, the far end: a Connect service with nothing but what
 * startRpcServer always registers (grpc.health.v1.Health), behind the same
 * caller authentication and request-id handling as every service.
 * Sends `{ready, port}` over IPC; ends when its parent goes away.
 */
import { parseCallerDigests } from "@payin/config";
import { createLogger } from "@payin/logging";
import { startRpcServer } from "@payin/rpc";

const server = await startRpcServer({
  name: "bench-trivial",
  services: [],
  routes: () => {},
  callers: parseCallerDigests(process.env.SERVICE_CALLER_DIGESTS ?? ""),
  allow: new Map(),
  host: "127.0.0.1",
  port: 0,
  logger: createLogger("bench-trivial"),
});
const stop = () => void server.close().then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
process.once("disconnect", stop);
process.send?.({ ready: "bench-trivial", port: server.port });
