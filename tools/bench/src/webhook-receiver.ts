/**
 * The webhook bench's receiver, its own process: an HTTP server on loopback
 * that answers every POST 204 at once and notes, per delivery, its
 * `webhook-id` and how long after the event happened it arrived (now minus
 * the body's `data.created_at`, the change's own time). It sends `{ready,
 * port}` over IPC once listening; an IPC `{stats: true}` is answered with
 * what it saw since the last `{reset: true}`.
 */
import http from "node:http";

let seen = new Map<string, number>();
let lags: number[] = [];
let firstAt = 0;
let lastAt = 0;
let deliveries = 0;

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    const now = Date.now();
    const id = String(req.headers["webhook-id"] ?? "");
    deliveries++;
    seen.set(id, (seen.get(id) ?? 0) + 1);
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { data?: { created_at?: string } };
      const createdAt = Date.parse(body.data?.created_at ?? "");
      if (Number.isFinite(createdAt)) lags.push(now - createdAt);
    } catch {
      // counted, not timed
    }
    if (firstAt === 0) firstAt = now;
    lastAt = now;
    res.statusCode = 204;
    res.end();
  });
});
server.keepAliveTimeout = 60_000;

process.on("message", (message: { stats?: boolean; reset?: boolean }) => {
  if (message?.reset) {
    seen = new Map();
    lags = [];
    firstAt = 0;
    lastAt = 0;
    deliveries = 0;
    process.send?.({ reset: true });
  }
  if (message?.stats) {
    const duplicates = [...seen.values()].reduce((sum, n) => sum + n - 1, 0);
    process.send?.({ stats: { deliveries, unique: seen.size, duplicates, firstAt, lastAt, lags } });
  }
});

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.send?.({ ready: "webhook-receiver", port: typeof address === "object" && address ? address.port : 0 });
});
