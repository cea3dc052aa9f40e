import { randomBytes } from "node:crypto";
import { assertionKeysFor, callerDigestsFor, deriveCredential, parseConfig } from "@payin/config";
import { createLogger } from "@payin/logging";
import { allocationV1 } from "@payin/proto";
import { Code, createServiceClient } from "@payin/rpc";
import { createTestDatabase } from "@payin/testing";
import { expect, it } from "vitest";
import { configSchema } from "../src/config.js";
import { startService } from "../src/service.js";

// The composition root main.ts runs, started in this process: from its
// configuration alone, on a fresh database, to a server that answers and closes.
it("starts from its configuration (migrating on boot), answers its callers, and closes", async () => {
  const master = randomBytes(32).toString("base64url");
  const config = parseConfig(configSchema, {
    DATABASE_URL: await createTestDatabase("allocation_start"),
    SERVICE_CALLER_DIGESTS: callerDigestsFor(master, ["test"]),
    DB_POOL_MAX: "2",
    ALLOCATION_PORT: "0",
    SERVICE_CREDENTIAL: deriveCredential(master, "allocation"),
    ACTOR_ASSERTION_PUBLIC_KEY: assertionKeysFor(master).ACTOR_ASSERTION_PUBLIC_KEY,
  });
  const service = await startService(config, { logger: createLogger("allocation", { level: process.env.TEST_LOG_LEVEL ?? "silent" }) });
  const client = createServiceClient(allocationV1.AllocationService, { baseUrl: `http://127.0.0.1:${service.port}`, serviceToken: deriveCredential(master, "test") });
  try {
    expect(service).toMatchObject({ name: "allocation", port: expect.any(Number) });
    expect((await client.listRails({})).rails).toBeDefined();
  } finally {
    await service.close();
  }
  await expect(client.listRails({}, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: Code.Unavailable });
});
