import type { Logger } from "@payin/logging";
import { startRpcServer, type RpcServerOptions } from "./server.js";

/** A started service: what every service's composition root (`startService` in its src/service.ts) answers. */
export interface RunningService {
  readonly name: string;
  /** The port it listens on (the one configured, or the one the system gave for 0). */
  readonly port: number;
  readonly logger: Logger;
  /**
   * Stops it: `onStopping` runs (it ends long-lived streams, which would
   * otherwise hold the close up), health turns NOT_SERVING, the listener
   * closes, in-flight calls finish, then `onClose` (pools, timers) runs.
   */
  close(): Promise<void>;
}

/**
 * The one signature of every service's composition root: `startService(config,
 * deps?)` in `services/<name>/src/service.ts` builds the service from its
 * configuration (deps replace what it would otherwise make: the logger, clients
 * of other services, the clock) and serves it. main.ts reads the configuration,
 * calls it and hands the result to `runUntilStopped`; tests call it in process.
 */
export type StartService<Config, Deps = object> = (config: Config, deps?: Deps) => Promise<RunningService>;

/**
 * Serves a service's RPC server (`startRpcServer`) as a RunningService. When the
 * server cannot start (the port is taken), `onClose` runs before the error is
 * thrown, so what was opened for it is released.
 */
export async function serveService(
  options: RpcServerOptions & { onStopping?: () => Promise<void> | void; onClose?: () => Promise<void> | void },
): Promise<RunningService> {
  let server;
  try {
    server = await startRpcServer(options);
  } catch (error) {
    await options.onStopping?.();
    await options.onClose?.();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    name: options.name,
    port: server.port,
    logger: options.logger,
    close: () =>
      (closing ??= (async () => {
        await options.onStopping?.();
        await server.close();
        await options.onClose?.();
      })()),
  };
}

/**
 * Runs a started service as its process's whole work: stops it cleanly on
 * SIGINT/SIGTERM (exiting 0, or 1 when it has not stopped within 8 s) and,
 * when a launcher started the process, tells it the service is ready and stops
 * when the launcher goes away, so no process is orphaned.
 */
export function runUntilStopped(service: RunningService): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.logger.info({ signal }, `${service.name} stopping`);
    const force = setTimeout(() => process.exit(1), 8_000);
    force.unref();
    await service.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.once("SIGINT", () => void stop("SIGINT"));
  process.once("SIGTERM", () => void stop("SIGTERM"));
  if (process.send) {
    process.once("disconnect", () => void stop("parent exited"));
    process.send({ ready: service.name, port: service.port });
  }
}
