import { randomBytes } from "node:crypto";
import { callerDigestsFor, deriveCredential, parseConfig } from "@payin/config";
import { createLogger } from "@payin/logging";
import { payinsV1 } from "@payin/proto";
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
    DATABASE_URL: await createTestDatabase("payins_start"),
    SERVICE_CALLER_DIGESTS: callerDigestsFor(master, ["test"]),
    DB_POOL_MAX: "2",
    PAYINS_PORT: "0",
    SERVICE_CREDENTIAL: deriveCredential(master, "payins"),
    PAYIN_CONTEXT_CACHE_MS: "0",
  });
  const service = await startService(config, { logger: createLogger("payins", { level: process.env.TEST_LOG_LEVEL ?? "silent" }) });
  const client = createServiceClient(payinsV1.PayinsService, { baseUrl: `http://127.0.0.1:${service.port}`, serviceToken: deriveCredential(master, "test") });
  try {
    expect(service).toMatchObject({ name: "payins", port: expect.any(Number) });
    expect(await client.listPayInIntents({ merchantUuid: "0190a000-0000-7000-8000-000000000000", limit: 10 })).toMatchObject({ intents: [], total: 0n });
  } finally {
    await service.close();
  }
  await expect(client.listPayInIntents({ merchantUuid: "0190a000-0000-7000-8000-000000000000", limit: 10 }, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: Code.Unavailable });
});
