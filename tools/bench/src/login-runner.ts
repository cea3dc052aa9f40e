/**
 * The sign-in load generator of the mixed scenario, run as its own process:
 * successful `POST /api/v1/auth/login` (transport bearer) of one identity without
 * MFA, paced open-loop at a fixed rate (one every 1000/rate ms, on a schedule that
 * does not drift and does not wait for earlier logins to answer).
 *
 * Sign-in throttling counts failed and in-progress attempts per client IP (more
 * than 100 in 15 minutes → 429), and the gateway takes the client IP from the TCP
 * peer; so that logins queueing on a busy machine never add up to that, they are
 * spread over many loopback source addresses (127.0.0.2, 127.0.0.3, …) in turn. It also
 * counts an attempt still in progress as a possible failure of its email (more
 * than 5 → 429), so logins rotate over several identities as well: each has at
 * most a few in flight even when logins queue.
 *
 * It starts logging in at once, tells its parent `{phase: "ready"}` after the
 * first successful login, then counts only the logins started between the
 * parent's `{cmd: "measure-start"}` and `{cmd: "measure-end"}`; after the end it
 * waits for those still in flight and prints one JSON line (a LoginResult).
 */
import http from "node:http";
import { LatencyRecorder, printResult, quantile } from "./stats.js";

export interface LoginLoadConfig {
  /** Origin of the API gateway, e.g. http://127.0.0.1:8080 */
  url: string;
  /** Identities without MFA, used in turn. */
  users: { email: string; password: string }[];
  /** Logins started per second. */
  ratePerS: number;
  /** Loopback source addresses to use in turn. */
  localAddresses: string[];
}

export interface LoginResult {
  /** Logins started in all, warm-up included (each used one source address). */
  fired: number;
  /** Logins started in the measured window. */
  started: number;
  /** Of those, answered 200 with `status: "authenticated"` and a token. */
  ok: number;
  /** Answered otherwise (status → count; "error" for a failed connection). */
  failed: Record<string, number>;
  /** Logins (started at any time) that answered 200 during the window: the sign-in work the machine really did then. */
  completedInWindow: number;
  /** Successful logins started in the window, per second of the window (they may answer after it). */
  rps: number;
  p50: number;
  p99: number;
  max: number;
  durationS: number;
  /** Most logins in flight at once during the window (open loop: grows when logins answer slower than they start). */
  maxInFlight: number;
}

const config = JSON.parse(process.env.BENCH_CHILD_CONFIG ?? "{}") as LoginLoadConfig;
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 }); // pooled per source address
const target = new URL("/api/v1/auth/login", config.url);
const bodies = config.users.map(({ email, password }) => JSON.stringify({ email, password, transport: "bearer" }));

/** One login from `localAddress`: its status ("200" only when authenticated with a token, else the code or "error"). */
function login(localAddress: string, body: string): Promise<string> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        localAddress,
        agent,
        timeout: 30_000,
        headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("error", () => resolve("error"));
        res.on("end", () => {
          if (res.statusCode !== 200) return resolve(String(res.statusCode));
          try {
            const parsed = JSON.parse(text) as { status?: string; token?: string };
            resolve(parsed.status === "authenticated" && parsed.token ? "200" : "200-not-authenticated");
          } catch {
            resolve("200-not-json");
          }
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", () => resolve("error"));
    req.end(body);
  });
}

async function main(): Promise<void> {
  const intervalMs = 1000 / config.ratePerS;
  const latencies = new LatencyRecorder();
  const failed: Record<string, number> = {};
  let phase: "before" | "measuring" | "after" = "before";
  let windowStart = 0;
  let windowEnd = 0;
  let started = 0;
  let ok = 0;
  let completedInWindow = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const counted = new Set<Promise<void>>();
  let ready = false;

  const ended = new Promise<void>((resolve) => {
    process.on("message", (message: { cmd?: string }) => {
      if (message?.cmd === "measure-start" && phase === "before") {
        phase = "measuring";
        windowStart = performance.now();
        maxInFlight = inFlight;
      } else if (message?.cmd === "measure-end" && phase === "measuring") {
        phase = "after";
        windowEnd = performance.now();
        resolve();
      }
    });
    process.on("disconnect", () => process.exit(1));
  });

  const fire = (n: number) => {
    const inWindow = phase === "measuring";
    const localAddress = config.localAddresses[n % config.localAddresses.length]!;
    const t = performance.now();
    inFlight++;
    if (inWindow) {
      started++;
      maxInFlight = Math.max(maxInFlight, inFlight);
    }
    const done = login(localAddress, bodies[n % bodies.length]!).then((status) => {
      inFlight--;
      if (status === "200" && phase === "measuring") completedInWindow++;
      if (status === "200" && !ready) {
        ready = true;
        process.send?.({ phase: "ready" });
      }
      if (!inWindow) return;
      if (status === "200") {
        ok++;
        latencies.record(performance.now() - t);
      } else {
        failed[status] = (failed[status] ?? 0) + 1;
      }
    });
    if (inWindow) {
      counted.add(done);
      void done.then(() => counted.delete(done));
    }
  };

  // Paced on absolute times, so a late timer does not shift the ones after it.
  const origin = performance.now();
  let n = 0;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    const now = performance.now();
    while (origin + n * intervalMs <= now) fire(n++);
    timer = setTimeout(tick, Math.max(0, origin + n * intervalMs - performance.now()));
  };
  tick();

  await ended;
  clearTimeout(timer);
  await Promise.all([...counted]);
  agent.destroy();
  const sorted = latencies.sorted();
  const durationS = (windowEnd - windowStart) / 1000;
  const result: LoginResult = {
    fired: n,
    started,
    completedInWindow,
    ok,
    failed,
    rps: durationS > 0 ? ok / durationS : 0,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: quantile(sorted, 1),
    durationS,
    maxInFlight,
  };
  await printResult(result);
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`login-runner: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
