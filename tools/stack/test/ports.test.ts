import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@payin/db-embedded";
import { platformPortClaims, portProblem } from "../src/ports.js";

let taken: net.Server;
let takenPort: number;

beforeAll(async () => {
  taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  takenPort = (taken.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

describe("the ports npm start checks before it starts anything", () => {
  it("are every process's <NAME>_PORT on HOST, and PG_PORT on 127.0.0.1 when set and no DATABASE_URL replaces it", () => {
    const config = { HOST: "0.0.0.0", PG_PORT: 5433, API_PORT: 8080, CHECKOUT_PORT: 8081, IDENTITY_PORT: 50051, MERCHANTS_PORT: 50052, PAYINS_PORT: 50053, ALLOCATION_PORT: 50054, OBSERVER_PORT: 50055, NOTIFICATIONS_PORT: 50056, NOTIFIER_PORT: 50057 };
    expect(platformPortClaims(config).map((c) => `${c.variable}=${c.host}:${c.port}`).sort()).toEqual([
      "ALLOCATION_PORT=0.0.0.0:50054",
      "API_PORT=0.0.0.0:8080",
      "CHECKOUT_PORT=0.0.0.0:8081",
      "IDENTITY_PORT=0.0.0.0:50051",
      "MERCHANTS_PORT=0.0.0.0:50052",
      "NOTIFICATIONS_PORT=0.0.0.0:50056",
      "NOTIFIER_PORT=0.0.0.0:50057",
      "OBSERVER_PORT=0.0.0.0:50055",
      "PAYINS_PORT=0.0.0.0:50053",
      "PG_PORT=127.0.0.1:5433",
    ]);
    expect(platformPortClaims({ ...config, PG_PORT: 0 }).map((c) => c.variable)).not.toContain("PG_PORT");
    expect(platformPortClaims({ ...config, DATABASE_URL: "postgres://db/payin" }).map((c) => c.variable)).not.toContain("PG_PORT");
  });

  it("name the variable of a port in use, one given twice, or a HOST that is not this machine's", async () => {
    const free = await freePort();
    expect(await portProblem([{ variable: "IDENTITY_PORT", port: free, host: "127.0.0.1" }])).toBeUndefined();
    expect(
      await portProblem([
        { variable: "IDENTITY_PORT", port: free, host: "127.0.0.1" },
        { variable: "PAYINS_PORT", port: takenPort, host: "127.0.0.1" },
      ]),
    ).toBe(`PAYINS_PORT is ${takenPort}, which is in use`);
    expect(
      await portProblem([
        { variable: "API_PORT", port: free, host: "127.0.0.1" },
        { variable: "CHECKOUT_PORT", port: free, host: "127.0.0.1" },
      ]),
    ).toBe(`CHECKOUT_PORT is ${free}, the same as API_PORT`);
    // 192.0.2.1: TEST-NET-1, never an address of this machine.
    expect(await portProblem([{ variable: "API_PORT", port: free, host: "192.0.2.1" }])).toBe("HOST is 192.0.2.1, which is not an address of this machine");
  });
});
