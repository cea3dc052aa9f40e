import http from "node:http";
import type { Observer } from "./observer.js";

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The observer's GET /health: 200 while the process runs, with how each rail
 * stands (lease held or why it could not be taken, last pass, halt, last error)
 * and how the relay to payins stands (its lease, its last error). Anything else
 * is 404.
 */
export async function startHealthServer(observer: Pick<Observer, "status" | "relayStatus">, listen: { host: string; port: number }): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    if (req.method === "GET" && req.url === "/health") {
      const body = JSON.stringify({ status: "ok", rails: observer.status(), relay: observer.relayStatus() });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { code: "NOT_FOUND", message: "no such resource" } }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, resolve);
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
