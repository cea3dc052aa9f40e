import { randomBytes } from "node:crypto";
import { assertionKeysFor, callerDigestsFor, deriveCredential, parseConfig } from "@payin/config";
import { createLogger } from "@payin/logging";
import { merchantsV1 } from "@payin/proto";
import { Code, createServiceClient, reasonOf } from "@payin/rpc";
import { createTestDatabase, failure } from "@payin/testing";
import { expect, it } from "vitest";
import { configSchema } from "../src/config.js";
import { startService } from "../src/service.js";

// The composition root main.ts runs, started in this process: from its
// configuration alone, on a fresh database, to a server that answers and closes.
it("starts from its configuration (migrating on boot), answers its callers, and closes", async () => {
  const master = randomBytes(32).toString("base64url");
  const config = parseConfig(configSchema, {
    DATABASE_URL: await createTestDatabase("merchants_start"),
    SERVICE_CALLER_DIGESTS: callerDigestsFor(master, ["test", "payins"]),
    MERCHANTS_PORT: "0",
    ACTOR_ASSERTION_PUBLIC_KEY: assertionKeysFor(master).ACTOR_ASSERTION_PUBLIC_KEY,
    DB_POOL_MAX: "2",
  });
  const service = await startService(config, { logger: createLogger("merchants", { level: process.env.TEST_LOG_LEVEL ?? "silent" }) });
  const client = (caller: string) =>
    createServiceClient(merchantsV1.MerchantsService, { baseUrl: `http://127.0.0.1:${service.port}`, serviceToken: deriveCredential(master, caller) });
  try {
    expect(service).toMatchObject({ name: "merchants", port: expect.any(Number) });
    const { merchant } = await client("test").createMerchant({ displayName: "Started" });
    expect((await client("test").getMerchant({ uuid: merchant!.uuid })).merchant?.displayName).toBe("Started");
    // Its callers' allowlist is in force: payins may not administer merchants.
    const refused = await failure(client("payins").listMerchants({}));
    expect({ code: refused.code, reason: reasonOf(refused) }).toEqual({ code: Code.PermissionDenied, reason: undefined });
  } finally {
    await service.close();
  }
  await expect(client("test").listMerchants({}, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: Code.Unavailable });
});
