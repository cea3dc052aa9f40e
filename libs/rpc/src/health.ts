import type { ConnectRouter } from "@connectrpc/connect";
import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { healthV1 } from "@payin/proto";

const { Health, HealthCheckResponseSchema, HealthCheckResponse_ServingStatus: Status } = healthV1;

/** Serving state of one process, reported through grpc.health.v1. */
export class HealthState {
  private serving = true;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly services: readonly string[]) {}

  /** Marks the process as not serving (used while shutting down). */
  setServing(serving: boolean): void {
    this.serving = serving;
    for (const notify of this.listeners) notify();
  }

  status(service: string): healthV1.HealthCheckResponse_ServingStatus {
    if (service !== "" && !this.services.includes(service)) {
      throw new ConnectError(`unknown service ${service}`, Code.NotFound);
    }
    return this.serving ? Status.SERVING : Status.NOT_SERVING;
  }

  /** Registers the Health service on a router. */
  register(router: ConnectRouter): void {
    router.service(Health, {
      check: (req) => create(HealthCheckResponseSchema, { status: this.status(req.service) }),
      watch: (req, ctx) => this.watch(req.service, ctx.signal),
    });
  }

  private async *watch(service: string, signal: AbortSignal) {
    let last: number | undefined;
    while (!signal.aborted) {
      const status = this.services.includes(service) || service === "" ? this.status(service) : Status.SERVICE_UNKNOWN;
      if (status !== last) {
        last = status;
        yield create(HealthCheckResponseSchema, { status });
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          this.listeners.delete(done);
          signal.removeEventListener("abort", done);
          resolve();
        };
        this.listeners.add(done);
        signal.addEventListener("abort", done);
      });
    }
  }
}
