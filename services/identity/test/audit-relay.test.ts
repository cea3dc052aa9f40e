import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { deriveCredential } from "@payin/config";
import { uuidv7 } from "@payin/ids";
import { SERVICES, startProcess, stopProcess, type RunningProcess } from "@payin/launcher";
import { createLogger } from "@payin/logging";
import { merchantsV1 } from "@payin/proto";
import { createServiceClient, fromTimestamp, outboxRecordToPb } from "@payin/rpc";
import { startAuditRelay, type AuditRelay, type OutboxEvent } from "@payin/db";
import { createTestDatabase, freePort } from "@payin/testing";
import { caller, signIn, useAdmin, useHarness } from "./support.js";

// The relay delivers identity's outbox to a real merchants service (its own
// process, on its own database): every record exactly once, with two relays
// (two replicas) at once, and after merchants was down for a while.
const h = useHarness();
const admin = useAdmin(h);
const merchantsSpec = SERVICES.find((s) => s.name === "merchants")!;
let merchantsOptions: Parameters<typeof startProcess>[1];
let merchantsProcess: RunningProcess;
let merchants: ReturnType<typeof createServiceClient<typeof merchantsV1.MerchantsService>>;
let reader: ReturnType<typeof createServiceClient<typeof merchantsV1.MerchantsService>>;
const logger = createLogger("identity", { level: process.env.TEST_LOG_LEVEL ?? "silent" });
/** Deliveries merchants refused or never answered. */
let failures = 0;

/** What identity's process sends: AppendAuditEvents with identity's own credential. */
async function append(events: OutboxEvent[]): Promise<void> {
  try {
    await merchants.appendAuditEvents({ events: events.map(outboxRecordToPb) }, { timeoutMs: 2_000 });
  } catch (error) {
    failures++;
    throw error;
  }
}

beforeAll(async () => {
  const master = randomBytes(32).toString("base64url");
  const port = await freePort();
  merchantsOptions = {
    env: { DATABASE_URL: await createTestDatabase("relay_merchants"), MERCHANTS_PORT: String(port), SERVICE_TOKEN: master, LOG_LEVEL: "info", PROCESS_NICE: "0", WORKER_SCHED_IDLE: "false" },
    output: path.join(inject("testLogDir"), `audit-relay-${randomBytes(4).toString("hex")}.log`),
    extraCallers: ["test"],
  };
  merchantsProcess = await startProcess(merchantsSpec, merchantsOptions);
  const baseUrl = `http://127.0.0.1:${port}`;
  merchants = createServiceClient(merchantsV1.MerchantsService, { baseUrl, serviceToken: deriveCredential(master, "identity") });
  reader = createServiceClient(merchantsV1.MerchantsService, { baseUrl, serviceToken: deriveCredential(master, "test") });
});

afterAll(async () => {
  if (merchantsProcess) await stopProcess(merchantsProcess);
});

/** Issues `count` machine credentials (a change each) and answers their uuids. */
async function issueCredentials(count: number): Promise<string[]> {
  const token = await signIn(h, admin);
  const uuids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await h.client.createMachineCredential({ ...caller(token), merchantUuid: uuidv7() });
    h.secrets.add(res.token);
    uuids.push(res.credential!.credentialUuid);
  }
  return uuids;
}

async function outbox(): Promise<{ event_uuid: string; target_uuid: string; occurred_at: Date }[]> {
  return (await h.sql(`select event_uuid::text, target_uuid::text, occurred_at from identity.audit_outbox order by event_uuid`)) as never;
}

/** The audit log's credential.create events naming one of `targets`. */
async function loggedFor(targets: string[]) {
  const { events } = await reader.listAuditEvents({ limit: 100, action: "credential.create" });
  return events.filter((e) => targets.includes(e.targetUuid));
}

async function untilDrained(): Promise<void> {
  await vi.waitFor(async () => expect(await outbox()).toEqual([]), { timeout: 10_000, interval: 20 });
}

describe("the audit relay", () => {
  it("delivers every record exactly once, with its own uuid, time and actor, when two relays run at once", async () => {
    const targets = await issueCredentials(12);
    const queued = await outbox();
    expect(queued.map((r) => r.target_uuid).filter((t) => targets.includes(t)).sort()).toEqual([...targets].sort());
    // Two replicas' relays, with small batches so that their passes overlap.
    const relays: AuditRelay[] = [startAuditRelay({ db: h.db, append, logger, intervalMs: 10, batchSize: 2 }), startAuditRelay({ db: h.db, append, logger, intervalMs: 10, batchSize: 2 })];
    try {
      await untilDrained();
    } finally {
      await Promise.all(relays.map((r) => r.stop()));
    }
    const logged = await loggedFor(targets);
    expect(logged.map((e) => e.targetUuid).sort()).toEqual([...targets].sort());
    for (const event of logged) {
      const row = queued.find((r) => r.target_uuid === event.targetUuid)!;
      expect(event.eventUuid).toBe(row.event_uuid);
      expect(fromTimestamp(event.occurredAt)?.getTime()).toBe(new Date(row.occurred_at).getTime());
      expect(event.actor).toMatchObject({ kind: "identity", uuid: admin.uuid, osUser: "" });
      expect(event).toMatchObject({ outcome: "succeeded", targetType: "machine_credential", errorCode: "" });
    }
  });

  it("keeps a delivery merchants already holds once (a repeat after a lost answer)", async () => {
    const [target] = await issueCredentials(1);
    const [row] = (await outbox()).filter((r) => r.target_uuid === target);
    const event: OutboxEvent = {
      eventUuid: row!.event_uuid,
      actorKind: "identity",
      actorUuid: admin.uuid,
      actorOsUser: null,
      requestId: null,
      action: "credential.create",
      targetType: "machine_credential",
      targetUuid: target!,
      occurredAt: new Date(row!.occurred_at),
    };
    await append([event]);
    const relay = startAuditRelay({ db: h.db, append, logger, intervalMs: 10 });
    try {
      await untilDrained();
    } finally {
      await relay.stop();
    }
    expect((await merchants.appendAuditEvents({ events: [outboxRecordToPb(event)] })).appended).toBe(0);
    expect((await loggedFor([target!])).map((e) => e.eventUuid)).toEqual([row!.event_uuid]);
  });

  it("keeps the records while merchants is down, and delivers them once it is back", async () => {
    await stopProcess(merchantsProcess);
    const relay = startAuditRelay({ db: h.db, append, logger, intervalMs: 20 });
    try {
      const before = failures;
      const targets = await issueCredentials(3);
      await vi.waitFor(() => expect(failures).toBeGreaterThanOrEqual(before + 3), { timeout: 10_000, interval: 20 });
      expect((await outbox()).map((r) => r.target_uuid).sort()).toEqual([...targets].sort());
      merchantsProcess = await startProcess(merchantsSpec, merchantsOptions);
      await untilDrained();
      expect((await loggedFor(targets)).map((e) => e.targetUuid).sort()).toEqual([...targets].sort());
    } finally {
      await relay.stop();
    }
  });
});
