import { readFileSync } from "node:fs";
import net from "node:net";
import { expect, it } from "vitest";
import { freePort } from "../src/embedded.js";

// A port from the range the kernel hands to outgoing connections can be taken
// by any new connection before a server binds it (seen as EADDRINUSE in CI).
it("picks free ports below the kernel's range for outgoing connections", async () => {
  const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(low);
  }
  // And they can be listened on.
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(ports[0], "127.0.0.1", () => resolve());
  });
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

// Two test workers each starting a platform at once must never be handed the same port.
it("hands a test worker distinct ports from a slice of the range of its own", async () => {
  const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  const worker = Number(process.env.VITEST_POOL_ID);
  expect(Number.isInteger(worker) && worker >= 1, "vitest names its worker").toBe(true);
  const size = Math.floor((low - 10_000) / 8);
  const start = 10_000 + ((worker - 1) % 8) * size;
  const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
  expect(new Set(ports).size).toBe(ports.length);
  for (const port of ports) {
    expect(port).toBeGreaterThanOrEqual(start);
    expect(port).toBeLessThan(start + size);
  }
});
