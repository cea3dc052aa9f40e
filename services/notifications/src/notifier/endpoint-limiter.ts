/**
 * At most `limit` deliveries in flight per endpoint in this process. A
 * delivery finding its endpoint saturated waits up to `maxWaitMs` for a slot
 * (a fast endpoint frees one within milliseconds), first come first served;
 * when none frees in time it is told so, and its job is queued again a
 * moment later instead of holding a worker while the endpoint hangs.
 */
export class EndpointLimiter {
  private readonly inFlight = new Map<string, number>();
  private readonly waiters = new Map<string, (() => void)[]>();

  constructor(
    private readonly limit: number,
    private readonly maxWaitMs: number,
  ) {}

  /** Takes a slot for the endpoint: true once taken (release it later), false when none freed within maxWaitMs. */
  acquire(endpointUuid: string): Promise<boolean> {
    const current = this.inFlight.get(endpointUuid) ?? 0;
    if (current < this.limit && !this.waiters.get(endpointUuid)?.length) {
      this.inFlight.set(endpointUuid, current + 1);
      return Promise.resolve(true);
    }
    if (this.maxWaitMs <= 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const queue = this.waiters.get(endpointUuid) ?? [];
      this.waiters.set(endpointUuid, queue);
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        const at = queue.indexOf(wake);
        if (at >= 0) queue.splice(at, 1);
        if (queue.length === 0) this.waiters.delete(endpointUuid);
        resolve(false);
      }, this.maxWaitMs);
      queue.push(wake);
    });
  }

  /** Gives a slot back: to the first waiter, if any (the count stays), else to the pool. */
  release(endpointUuid: string): void {
    const queue = this.waiters.get(endpointUuid);
    const next = queue?.shift();
    if (queue && queue.length === 0) this.waiters.delete(endpointUuid);
    if (next) {
      next();
      return;
    }
    const left = (this.inFlight.get(endpointUuid) ?? 1) - 1;
    if (left > 0) this.inFlight.set(endpointUuid, left);
    else this.inFlight.delete(endpointUuid);
  }

  /** Deliveries in flight now (all endpoints). */
  total(): number {
    let sum = 0;
    for (const n of this.inFlight.values()) sum += n;
    return sum;
  }

  /** Deliveries in flight now to one endpoint. */
  of(endpointUuid: string): number {
    return this.inFlight.get(endpointUuid) ?? 0;
  }
}
