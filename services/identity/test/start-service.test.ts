import { randomBytes } from "node:crypto";
import { callerDigestsFor, deriveCredential, parseConfig } from "@payin/config";
import { createLogger } from "@payin/logging";
import { identityV1 } from "@payin/proto";
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
    DATABASE_URL: await createTestDatabase("identity_start"),
    SERVICE_CALLER_DIGESTS: callerDigestsFor(master, ["test"]),
    SERVICE_CREDENTIAL: deriveCredential(master, "identity"),
    DB_POOL_MAX: "2",
    IDENTITY_PORT: "0",
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString("base64url"),
    ACTOR_ASSERTION_SIGNING_KEY: randomBytes(32).toString("base64url"),
    PROCESS_NICE: "0",
    WORKER_SCHED_IDLE: "false",
  });
  const service = await startService(config, { logger: createLogger("identity", { level: process.env.TEST_LOG_LEVEL ?? "silent" }) });
  const client = createServiceClient(identityV1.IdentityService, { baseUrl: `http://127.0.0.1:${service.port}`, serviceToken: deriveCredential(master, "test") });
  try {
    expect(service).toMatchObject({ name: "identity", port: expect.any(Number) });
    expect((await client.listIdentities({})).identities).toEqual([]);
  } finally {
    await service.close();
  }
  await expect(client.listIdentities({}, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: Code.Unavailable });
});
