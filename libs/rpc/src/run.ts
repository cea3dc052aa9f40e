import { startRpcServer, type RpcServerOptions, type RunningRpcServer } from "./server.js";

/**
 * Starts a service's RPC server and stops it cleanly on SIGINT/SIGTERM:
 * `onStopping` runs (it ends long-lived streams, which would otherwise hold the
 * close up), health turns NOT_SERVING, the listener closes, in-flight calls
 * finish, then `onClose` (pools, timers) runs and the process exits.
 */
export async function runService(
  options: RpcServerOptions & { onStopping?: () => Promise<void> | void; onClose?: () => Promise<void> | void },
): Promise<RunningRpcServer> {
  const server = await startRpcServer(options);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    options.logger.info({ signal }, `${options.name} stopping`);
    const force = setTimeout(() => process.exit(1), 8_000);
    force.unref();
    await options.onStopping?.();
    await server.close();
    await options.onClose?.();
    clearTimeout(force);
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  if (process.send) {
    // Started by a launcher: stop when it goes away, so no process is orphaned.
    process.once("disconnect", () => void stop("parent exited"));
    process.send({ ready: options.name, port: server.port });
  }
  return server;
}
