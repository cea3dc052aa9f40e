/**
 * The load generator, run as its own process by the bench: autocannon against
 * one HTTP endpoint, a warm-up pass first, then the measured pass. Prints one
 * JSON line (a LoadResult) on stdout and tells its parent over IPC when the
 * measured pass starts and ends, so CPU use is taken over that window only.
 */
import { randomBytes } from "node:crypto";
import autocannon from "autocannon";
import { LatencyRecorder, printResult, quantile, type LoadResult } from "./stats.js";

export interface HttpLoadConfig {
  /** Origin, e.g. http://127.0.0.1:8080 */
  url: string;
  connections: number;
  durationS: number;
  warmupS: number;
  headers: Record<string, string>;
  /** "get": GET the paths in turn; "create": POST a fresh pay-in intent to createPath each time. */
  kind: "get" | "create";
  paths: string[];
  /** Jurisdiction of the pay-ins a create pass makes. */
  jurisdiction: string;
  /**
   * Offered load in requests/s over all connections, evenly spaced: for
   * paced-runner.ts (open loop). This runner (autocannon) ignores it and keeps
   * every connection busy: the next request leaves as the last is answered.
   */
  ratePerS?: number;
}

const config = JSON.parse(process.env.BENCH_CHILD_CONFIG ?? "{}") as HttpLoadConfig;

/** Requests for one pass. Every create gets its own Idempotency-Key and a future expires_at. */
function requests(): autocannon.Request[] {
  if (config.kind === "get") {
    let next = 0;
    return [{ method: "GET", setupRequest: (req) => ({ ...req, path: config.paths[next++ % config.paths.length]! }) }];
  }
  const prefix = randomBytes(6).toString("hex");
  const expiresAt = new Date(Date.now() + 24 * 3600_000).toISOString();
  let counter = 0;
  return [
    {
      method: "POST",
      setupRequest: (req) => {
        const n = counter++;
        return {
          ...req,
          path: config.paths[0]!,
          headers: { ...req.headers, "idempotency-key": `bench-${prefix}-${n}` },
          body: JSON.stringify({
            asset: n % 2 === 0 ? "usdt" : "usdc",
            amount: `${10 + (n % 1000)}.25`,
            jurisdiction: config.jurisdiction,
            expires_at: expiresAt,
            reference: `order-${prefix}-${n}`,
          }),
        };
      },
    },
  ];
}

function pass(durationS: number, latencies?: LatencyRecorder): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: config.url,
        connections: config.connections,
        duration: durationS,
        headers: { "content-type": "application/json", ...config.headers },
        requests: requests(),
        timeout: 10,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    if (latencies) {
      // autocannon's own histogram has 1 ms resolution; this keeps the exact times.
      instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
        if (status >= 200 && status < 300) latencies.record(ms);
      });
    }
  });
}

async function main(): Promise<void> {
  if (config.warmupS > 0) await pass(config.warmupS);
  const latencies = new LatencyRecorder();
  process.send?.({ phase: "measure-start" });
  const result = await pass(config.durationS, latencies);
  process.send?.({ phase: "measure-end" });
  const sorted = latencies.sorted();
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count ?? 0;
  const out: LoadResult = {
    total: result.requests.total,
    ok: result["2xx"],
    rps: result["2xx"] / result.duration,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: quantile(sorted, 1),
    durationS: result.duration,
    errors: result.errors,
    non2xx: result.non2xx,
    statusCodes,
  };
  await printResult(out);
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`load-runner: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
