/**
 * When `npm start` restarts a process of the platform that exited on its own
 * (see supervisor.ts): after a pause that doubles with each crash in a row —
 * 0.5 s, 1 s, 2 s, … up to 10 s — and starts over once the process has run for
 * 30 s; and not at all once it has crashed 5 times within 60 s, a process that
 * keeps crashing having a cause a restart will not cure. Pure: the caller says
 * what time it is.
 */
export interface RestartPolicyOptions {
  /** Pause before the first restart of a series. */
  readonly firstDelayMs: number;
  /** Longest pause. */
  readonly maxDelayMs: number;
  /** A process that ran this long before it exited starts a new series (first pause again). */
  readonly stableAfterMs: number;
  /** This many exits within `crashWindowMs` and the process is not restarted again. */
  readonly maxCrashes: number;
  readonly crashWindowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicyOptions = {
  firstDelayMs: 500,
  maxDelayMs: 10_000,
  stableAfterMs: 30_000,
  maxCrashes: 5,
  crashWindowMs: 60_000,
};

export type RestartDecision =
  | { readonly kind: "restart"; readonly delayMs: number }
  | { readonly kind: "give-up"; readonly crashes: number; readonly windowMs: number };

/** The restart history of one process. */
export class RestartPolicy {
  /** Crashes since the process last ran for `stableAfterMs`. */
  private inARow = 0;
  /** When it last became ready; undefined while it is not running (a failed start never is). */
  private runningSince: number | undefined;
  /** Times of its exits within the crash window. */
  private crashes: number[] = [];

  constructor(private readonly options: RestartPolicyOptions = DEFAULT_RESTART_POLICY) {}

  /** The process is running (started, ready) since `now`. */
  started(now: number): void {
    this.runningSince = now;
  }

  /** The process exited (or failed to start) at `now` without being asked to: what to do. */
  exited(now: number): RestartDecision {
    const { firstDelayMs, maxDelayMs, stableAfterMs, maxCrashes, crashWindowMs } = this.options;
    if (this.runningSince !== undefined && now - this.runningSince >= stableAfterMs) this.inARow = 0;
    this.runningSince = undefined;
    this.inARow += 1;
    this.crashes = [...this.crashes.filter((at) => now - at < crashWindowMs), now];
    if (this.crashes.length >= maxCrashes) return { kind: "give-up", crashes: this.crashes.length, windowMs: crashWindowMs };
    return { kind: "restart", delayMs: Math.min(firstDelayMs * 2 ** (this.inARow - 1), maxDelayMs) };
  }
}
