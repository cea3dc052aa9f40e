/**
 * An open-loop load generator, run as its own process by the bench: GETs the
 * paths in turn at a fixed rate, evenly spaced (one every 1000/rate ms on a
 * schedule that does not drift), whether or not earlier requests have answered,
 * over at most `connections` keep-alive connections. A request's latency counts
 * from the moment the schedule said to send it, so a request that waits for a
 * free connection is charged for the wait (no coordinated omission).
 *
 * A warm-up pass first, then the measured pass; tells its parent over IPC when
 * the measured pass starts and ends, and prints one JSON line (a LoadResult).
 */
import http from "node:http";
import type { HttpLoadConfig } from "./load-runner.js";
import { LatencyRecorder, printResult, quantile, type LoadResult } from "./stats.js";

const config = JSON.parse(process.env.BENCH_CHILD_CONFIG ?? "{}") as HttpLoadConfig;
const rate = config.ratePerS ?? 0;
const origin = new URL(config.url);
const agent = new http.Agent({ keepAlive: true, maxSockets: config.connections });
let nextPath = 0;

/** One GET; resolves with its status code, or 0 when the connection failed. */
function get(path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: origin.hostname, port: origin.port, path, method: "GET", agent, timeout: 10_000, headers: config.headers },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", () => resolve(0));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", () => resolve(0));
    req.end();
  });
}

interface Pass {
  total: number;
  ok: number;
  errors: number;
  non2xx: number;
  statusCodes: Record<string, number>;
}

/**
 * Sends at `rate` for `durationS` seconds; resolves once every request sent has
 * answered. Requests in flight are counted, not kept: holding a settled promise
 * per request (some 86,000 in a 20 s window) grew the heap until major
 * collections paused this process, and each pause was charged to the requests
 * it delayed as latency of the platform.
 */
async function pass(durationS: number, latencies?: LatencyRecorder): Promise<Pass> {
  const result: Pass = { total: 0, ok: 0, errors: 0, non2xx: 0, statusCodes: {} };
  const intervalMs = 1000 / rate;
  const count = Math.floor(durationS * rate);
  const start = performance.now();
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const answered = (scheduledAt: number, status: number) => {
    result.total++;
    if (status === 0) result.errors++;
    else {
      result.statusCodes[status] = (result.statusCodes[status] ?? 0) + 1;
      if (status >= 200 && status < 300) {
        result.ok++;
        latencies?.record(performance.now() - scheduledAt);
      } else result.non2xx++;
    }
    if (--inFlight === 0) drained?.();
  };
  let sent = 0;
  while (sent < count) {
    const due = Math.min(count, Math.floor((performance.now() - start) / intervalMs) + 1);
    for (; sent < due; sent++) {
      const scheduledAt = start + sent * intervalMs;
      const path = config.paths[nextPath++ % config.paths.length]!;
      inFlight++;
      void get(path).then((status) => answered(scheduledAt, status));
    }
    const wait = start + sent * intervalMs - performance.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
  }
  if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
  return result;
}

async function main(): Promise<void> {
  if (!(rate > 0)) throw new Error("paced-runner needs ratePerS > 0");
  if (config.kind !== "get") throw new Error("paced-runner only sends GETs");
  if (config.warmupS > 0) await pass(config.warmupS);
  const latencies = new LatencyRecorder();
  process.send?.({ phase: "measure-start" });
  const started = performance.now();
  const result = await pass(config.durationS, latencies);
  const durationS = (performance.now() - started) / 1000;
  process.send?.({ phase: "measure-end" });
  const sorted = latencies.sorted();
  const out: LoadResult = {
    total: result.total,
    ok: result.ok,
    rps: result.ok / durationS,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: quantile(sorted, 1),
    durationS,
    errors: result.errors,
    non2xx: result.non2xx,
    statusCodes: result.statusCodes,
    latencies: Array.from(sorted, (ms) => Math.round(ms * 1000) / 1000),
  };
  await printResult(out);
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`paced-runner: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
