/** What every load scenario reports, whoever generated the load. */
export interface LoadResult {
  /** Completed requests (or transactions) in the measured window, any outcome. */
  total: number;
  /** Those that succeeded (2xx, or a committed transaction). */
  ok: number;
  /** Successful requests (transactions) per second over the measured window. */
  rps: number;
  p50: number;
  p99: number;
  max: number;
  durationS: number;
  /** Connection errors, timeouts, failed transactions. */
  errors: number;
  /** Responses that were not 2xx. */
  non2xx: number;
  /** Status code → count, when HTTP. */
  statusCodes?: Record<string, number>;
  /** First few error messages, for diagnosis. */
  sampleErrors?: string[];
  /** Every successful request's latency (ms), ascending: paced runs only, for pooling across windows. */
  latencies?: number[];
}

/** The value at quantile `q` (0..1) of an ascending array; 0 when empty. */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

/** Latencies kept in a growable Float64Array (no per-sample allocation). */
export class LatencyRecorder {
  private values = new Float64Array(1 << 16);
  private length = 0;

  record(ms: number): void {
    if (this.length === this.values.length) {
      const bigger = new Float64Array(this.values.length * 2);
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.length++] = ms;
  }

  get count(): number {
    return this.length;
  }

  sorted(): Float64Array {
    return this.values.slice(0, this.length).sort();
  }
}

/** Formats a number for the table: no decimals from 100 up, one below. */
export function fmt(value: number | undefined, digits = 1): string {
  if (value === undefined || Number.isNaN(value)) return "-";
  return value >= 100 ? Math.round(value).toString() : value.toFixed(digits);
}

/**
 * Prints a load generator's result as its one JSON line and resolves once the
 * line is handed to the OS: stdout to a pipe is asynchronous, and a process
 * that exits right after a plain write of a few hundred KiB (every latency of a
 * window) cuts it short.
 */
export function printResult(result: unknown): Promise<void> {
  return new Promise((resolve) => process.stdout.write(`${JSON.stringify(result)}\n`, () => resolve()));
}

/** A whole-number setting of the bench from the environment (at least `min`), or `fallback` when unset. */
export function envInt(name: string, fallback: number, min: number): number {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number ≥ ${min}, got "${text}"`);
  return value;
}

