import { randomBytes } from "node:crypto";
import { openDatabase, sql } from "@payin/db";
import { assertionKeysFor, callerDigestsFor, deriveCredential, deriveWebhookSecretKey, parseConfig } from "@payin/config";
import { uuidv7 } from "@payin/ids";
import { createLogger } from "@payin/logging";
import { merchantsV1, notificationsV1 } from "@payin/proto";
import { allowCallers, Code, createServiceClient } from "@payin/rpc";
import { createTestDatabase, platformAssertions, startTestServiceServer, waitFor } from "@payin/testing";
import { expect, it } from "vitest";
import { configSchema } from "../src/config.js";
import { startService } from "../src/service.js";
import { ormOptions } from "../src/store/orm.js";
import { intentEvent } from "./harness.js";

// The composition root main.ts runs, started in this process: from its
// configuration alone, on a fresh database, to a server that answers, takes
// events (graphile-worker's schema installed at boot), relays its audit
// records to merchants, and closes.
it("starts from its configuration (migrating its schema and the job queue's on boot), relays its audit records, and closes", async () => {
  // merchants' AppendAuditEvents, as the relay reaches it.
  const appended: merchantsV1.AuditEvent[] = [];
  const merchants = await startTestServiceServer({
    name: "merchants",
    services: [merchantsV1.MerchantsService.typeName],
    routes: (router) =>
      router.service(merchantsV1.MerchantsService, {
        appendAuditEvents(req) {
          appended.push(...req.events);
          return { appended: req.events.length };
        },
      }),
    allow: allowCallers(merchantsV1.MerchantsService, { notifications: ["appendAuditEvents"] }),
  });
  const master = randomBytes(32).toString("base64url");
  const databaseUrl = await createTestDatabase("notifications_start");
  const config = parseConfig(configSchema, {
    DATABASE_URL: databaseUrl,
    SERVICE_CALLER_DIGESTS: callerDigestsFor(master, ["test", "payins"]),
    DB_POOL_MAX: "2",
    NOTIFICATIONS_PORT: "0",
    SERVICE_CREDENTIAL: merchants.credential("notifications"),
    MERCHANTS_URL: merchants.url,
    ACTOR_ASSERTION_PUBLIC_KEY: assertionKeysFor(master).ACTOR_ASSERTION_PUBLIC_KEY,
    WEBHOOK_SECRET_KEY: deriveWebhookSecretKey(master),
    WEBHOOK_ALLOW_INSECURE_URLS: "true",
  });
  expect({ retention: config.EVENT_RETENTION_DAYS, limit: config.WEBHOOK_ENDPOINTS_PER_MERCHANT }).toEqual({ retention: 30, limit: 16 });
  const service = await startService(config, { logger: createLogger("notifications", { level: process.env.TEST_LOG_LEVEL ?? "silent" }) });
  const client = (caller: string) => createServiceClient(notificationsV1.NotificationsService, { baseUrl: `http://127.0.0.1:${service.port}`, serviceToken: deriveCredential(master, caller) });
  const db = await openDatabase(ormOptions(databaseUrl, 1));
  try {
    expect(service).toMatchObject({ name: "notifications", port: expect.any(Number) });
    const m = uuidv7();
    const person = uuidv7();
    const { endpoint } = await client("test").createWebhookEndpoint({
      merchantUuid: m,
      url: "http://127.0.0.1:9/hook",
      actorAssertion: platformAssertions(master).identity(person),
    });
    expect((await client("payins").recordEvents({ events: [intentEvent(m, "pay_in_intent.created")] })).recorded).toBe(1);
    const jobs = await db.query(sql<{ n: number }>(`select count(*)::int as n from graphile_worker._private_jobs where key like 'delivery:%'`));
    expect(jobs[0]!.n).toBe(1);
    await waitFor(() => appended.length > 0, "the audit record at merchants");
    expect(appended.map((e) => ({ action: e.action, target: e.targetUuid, kind: e.actor?.kind, uuid: e.actor?.uuid }))).toEqual([
      { action: "webhook_endpoint.create", target: endpoint!.endpointUuid, kind: "identity", uuid: person },
    ]);
    // Delivered, it leaves the outbox (once merchants answered and the relay's transaction committed).
    const outbox = async () => (await db.query(sql<{ n: number }>(`select count(*)::int as n from audit_outbox`)))[0]!.n;
    for (const until = Date.now() + 5_000; (await outbox()) > 0 && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await outbox()).toBe(0);
  } finally {
    await db.close();
    await service.close();
    await merchants.close();
  }
  await expect(client("test").listWebhookEndpoints({ merchantUuid: uuidv7() }, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: Code.Unavailable });
});
