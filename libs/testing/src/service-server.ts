import { randomBytes } from "node:crypto";
import type { ConnectRouter, Interceptor } from "@connectrpc/connect";
import { callerDigestsFor, deriveCredential, parseCallerDigests } from "@payin/config";
import { INTERNAL_CALLERS } from "@payin/launcher";
import { createLogger } from "@payin/logging";
import { startRpcServer, type CallerPolicy, type RunningRpcServer } from "@payin/rpc";

export interface TestServiceServer {
  server: RunningRpcServer;
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  /** The credential of a caller, derived as the launcher derives it. */
  credential(caller: string): string;
  close(): Promise<void>;
}

/**
 * A service's real RPC server in this process, on a free port, recognising the
 * platform's internal callers, `stack` and `test` as the launchers set them up, with the
 * service's own allowlist: for testing what each caller may call.
 */
export async function startTestServiceServer(options: {
  name: string;
  services: readonly string[];
  routes: (router: ConnectRouter) => void;
  allow: CallerPolicy;
  /** The service's own interceptors (its domain-error interceptor). */
  interceptors?: Interceptor[];
}): Promise<TestServiceServer> {
  const master = randomBytes(32).toString("base64url");
  const server = await startRpcServer({
    ...options,
    callers: parseCallerDigests(callerDigestsFor(master, [...INTERNAL_CALLERS, "stack", "test"])),
    host: "127.0.0.1",
    port: 0,
    logger: createLogger(options.name, { level: process.env.TEST_LOG_LEVEL ?? "silent" }),
  });
  return {
    server,
    url: `http://127.0.0.1:${server.port}`,
    credential: (caller) => deriveCredential(master, caller),
    close: () => server.close(),
  };
}
