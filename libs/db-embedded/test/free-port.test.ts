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
