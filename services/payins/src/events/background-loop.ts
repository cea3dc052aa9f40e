/** What a loop reports: an outage once when it starts, and its end. */
export interface LoopLogger {
  warn(fields: object, message: string): void;
  info(message: string): void;
}

export interface LoopOptions {
  /** One pass; answers true when more work is waiting at once (a full batch). */
  pass: () => Promise<boolean>;
  /** Between passes when nothing more was waiting. */
  idleMs: number;
  /** After a failed pass: the first wait, doubled after each further failure up to `maxBackoffMs`. */
  minBackoffMs: number;
  maxBackoffMs: number;
  logger: LoopLogger;
  /** Logged (warn) when passes start failing, and (info) when one succeeds again. */
  failing: string;
  recovered: string;
}

export interface Loop {
  /** Runs the next pass now if the loop is waiting between passes (not while it backs off). */
  wake(): void;
  /** Stops the loop and waits for a pass in progress. */
  stop(): Promise<void>;
}

/**
 * A background loop of passes: the next pass at once after one that left
 * work waiting, `idleMs` after one that did not, and with a growing backoff
 * after failures (logged once per outage, not once per pass).
 */
export function startLoop(options: LoopOptions): Loop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let failures = 0;
  let idle = false;
  const schedule = (ms: number, isIdle: boolean) => {
    if (stopped) return;
    idle = isIdle;
    timer = setTimeout(tick, ms);
  };
  const pass = async () => {
    try {
      const more = await options.pass();
      if (failures > 0) options.logger.info(options.recovered);
      failures = 0;
      schedule(more ? 0 : options.idleMs, !more);
    } catch (err) {
      if (failures === 0) options.logger.warn({ err }, options.failing);
      failures++;
      schedule(Math.min(options.maxBackoffMs, options.minBackoffMs * 2 ** (failures - 1)), false);
    }
  };
  const tick = () => {
    timer = undefined;
    idle = false;
    running = pass();
  };
  tick();
  return {
    wake() {
      if (stopped || !idle || !timer) return;
      clearTimeout(timer);
      tick();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
