/**
 * Micro-benchmark of the internal unary client (not part of `npm run bench`):
 * N sequential `grpc.health.v1.Health/Check` calls through `createServiceClient`,
 * inside a request context, to the trivial service (`trivial-service.ts`) in its
 * own process. Prints wall-clock and client-CPU µs per call, per round and the
 * median over rounds.
 *
 *   node --import tsx tools/bench/src/unary-client-micro.ts [calls per round] [rounds]
 *
 * `UNARY_CLIENT_DIR=<dir>` measures another copy of libs/rpc/src (its
 * `client.ts` and `context.ts`), e.g. the code before a change, against the same
 * service in the same run; `UNARY_CLIENT_ALTERNATE=1` then alternates rounds of
 * both, so that a change of the machine's load hits both alike.
 */
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { callerDigestsFor, deriveCredential } from "@payin/config";
import { healthV1 } from "@payin/proto";
import { script } from "./children.js";

interface Variant {
  name: string;
  client: typeof import("@payin/rpc");
  context: typeof import("@payin/rpc");
}

const callsPerRound = Number(process.argv[2] ?? 20_000);
const rounds = Number(process.argv[3] ?? 5);

async function variant(name: string, dir: string | undefined): Promise<Variant> {
  if (!dir) {
    const rpc = await import("@payin/rpc");
    return { name, client: rpc, context: rpc };
  }
  const at = (file: string) => import(pathToFileURL(`${dir.replace(/\/+$/, "")}/${file}`).href) as Promise<typeof import("@payin/rpc")>;
  return { name, client: await at("client.ts"), context: await at("context.ts") };
}

const master = randomBytes(32).toString("base64url");
const server = fork(script("trivial-service.ts"), [], {
  env: { ...process.env, SERVICE_CALLER_DIGESTS: callerDigestsFor(master, ["test"]), LOG_LEVEL: "warn" },
  execArgv: ["--import", "tsx"],
  stdio: ["ignore", "inherit", "inherit", "ipc"],
});
const port = await new Promise<number>((resolve, reject) => {
  server.once("error", reject);
  server.once("exit", (code) => reject(new Error(`trivial service exited with ${code}`)));
  server.on("message", (m: { ready?: string; port?: number }) => m.port && resolve(m.port));
});

const variants = [await variant("current", undefined)];
if (process.env.UNARY_CLIENT_DIR) variants.push(await variant(process.env.UNARY_CLIENT_DIR, process.env.UNARY_CLIENT_DIR));
const clients = variants.map((v) => ({
  ...v,
  health: v.client.createServiceClient(healthV1.Health, { baseUrl: `http://127.0.0.1:${port}`, serviceToken: deriveCredential(master, "test") }),
  results: [] as { wall: number; cpu: number }[],
}));

async function round(c: (typeof clients)[number], calls: number) {
  return c.context.runWithContext({ requestId: "req_microbench" }, async () => {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < calls; i++) await c.health.check({ service: "" });
    const wall = ((performance.now() - t0) * 1000) / calls;
    const used = process.cpuUsage(cpu0);
    return { wall, cpu: (used.user + used.system) / calls };
  });
}

const out = (line: string) => process.stdout.write(`${line}\n`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  for (const c of clients) await round(c, 3_000); // warm-up
  const order = process.env.UNARY_CLIENT_ALTERNATE ? Array.from({ length: rounds }, () => clients).flat() : clients.flatMap((c) => Array(rounds).fill(c) as typeof clients);
  for (const c of order) {
    const r = await round(c, callsPerRound);
    c.results.push(r);
    out(`${c.name}: ${r.wall.toFixed(1)} µs/call wall, ${r.cpu.toFixed(1)} µs/call client CPU`);
  }
  for (const c of clients) {
    out(
      `median ${c.name}: ${median(c.results.map((r) => r.wall)).toFixed(1)} µs/call wall, ${median(c.results.map((r) => r.cpu)).toFixed(1)} µs/call client CPU (${rounds} × ${callsPerRound} calls)`,
    );
  }
} finally {
  server.kill("SIGTERM");
}
