import http from "node:http";
import { prepared, type Database } from "@payin/db";
import type { Notifier } from "./notifier.js";

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/** How far behind delivery is: pending deliveries, and how long the oldest due one has waited. */
const LAG = prepared<{ pending: string; due: string; oldest_due_age_ms: string | null }>(
  "notifier_lag",
  `select count(*) as pending,
          count(*) filter (where next_attempt_at <= now()) as due,
          (extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now())) * 1000)::bigint as oldest_due_age_ms
     from deliveries where status = 'pending'`,
);

/**
 * The notifier's GET /health: 200 while the process runs, with how far behind
 * delivery is (pending deliveries, those due, the age of the oldest due one),
 * what this process has in flight and has done, and its heartbeat. 503 when
 * the database cannot be read. Anything else is 404.
 */
export async function startHealthServer(notifier: Notifier, db: Database, listen: { host: string; port: number }): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    };
    if (req.method !== "GET" || req.url !== "/health") {
      send(404, { error: { code: "NOT_FOUND", message: "no such resource" } });
      return;
    }
    const process = { worker_id: notifier.workerId ?? null, in_flight: notifier.inFlightCount(), counters: notifier.counters, heartbeat: notifier.heartbeatStatus() };
    db.query(LAG).then(
      ([row]) =>
        send(200, {
          status: "ok",
          pending: Number(row?.pending ?? 0),
          due: Number(row?.due ?? 0),
          oldest_due_age_ms: row?.oldest_due_age_ms == null ? 0 : Number(row.oldest_due_age_ms),
          ...process,
        }),
      () => send(503, { status: "database_unavailable", ...process }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, resolve);
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
