import { randomBytes } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { database, migrate, openOrm, sql, type Clock, type Database } from "@payin/db";
import { eventData, type EventType } from "@payin/events";
import { uuidv7 } from "@payin/ids";
import { createLogger } from "@payin/logging";
import { notificationsV1 } from "@payin/proto";
import { createServiceClient, domainErrorInterceptor } from "@payin/rpc";
import { createTestDatabase, startServiceHarness, startTestServiceServer, testAssertions, type ServiceHarness } from "@payin/testing";
import type { HostLookup } from "../src/domain/webhook-url.js";
import { CALLERS } from "../src/rpc/callers.js";
import { reasonCodes } from "../src/rpc/reason-codes.js";
import { createNotificationsService, SERVICE_NAMES, type NotificationsPorts } from "../src/service.js";
import { installJobQueue } from "../src/store/job-queue.js";
import { ormOptions } from "../src/store/orm.js";

export type NotificationsClient = Client<typeof notificationsV1.NotificationsService>;

/** What the harness's service takes as identity's assertions. */
export const ASSERTIONS = testAssertions();
/** The key the harness's service seals secrets with. */
export const SEALING_KEY = randomBytes(32);

/** A resolver with a few names: public ones, and one resolving to a private address. */
export const TEST_LOOKUP: HostLookup = async (host) => {
  const names: Record<string, string[]> = {
    "hooks.example.com": ["93.184.216.34"],
    "other.example.com": ["93.184.216.35", "2606:2800:220:1:248:1893:25c8:1946"],
    "internal.example.com": ["93.184.216.36", "10.0.0.5"],
  };
  const addresses = names[host];
  if (!addresses) throw Object.assign(new Error(`no such host ${host}`), { code: "ENOTFOUND" });
  return addresses;
};

export interface Harness extends ServiceHarness<typeof notificationsV1.NotificationsService> {
  db: Database;
  /** Rows of a statement on the harness's database (search path: the notifications schema). */
  rows<T extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
}

/** A clock tests can set; the system's time until they do. */
export class TestClock implements Clock {
  private fixed: Date | null = null;
  now(): Date {
    return this.fixed ?? new Date();
  }
  set(at: Date | null): void {
    this.fixed = at;
  }
}

/**
 * The notifications service over an in-memory transport, on a fresh database
 * with its migrations and graphile-worker's applied.
 */
export async function startNotifications(ports: Partial<Omit<NotificationsPorts, "db">> = {}): Promise<Harness> {
  const harness = await startServiceHarness({
    service: notificationsV1.NotificationsService,
    domain: "notifications",
    ormOptions,
    routes: (orm) =>
      createNotificationsService({ db: database(orm), assertionKey: ASSERTIONS.verifyingKey, sealingKey: SEALING_KEY, lookup: TEST_LOOKUP, ...ports }),
    reasonCodes,
  });
  await installJobQueue(harness.url);
  const db = database(harness.orm);
  return { ...harness, db, rows: (text, values = []) => db.query(sql(text), values) as never };
}

/** The notifications service on its real RPC server (the platform's callers and their allowlist), on a fresh database. */
export interface NotificationsServer {
  client(caller: string): NotificationsClient;
  close(): Promise<void>;
}

export async function startNotificationsServer(): Promise<NotificationsServer> {
  const url = await createTestDatabase("notifications");
  await migrate(ormOptions(url));
  await installJobQueue(url);
  const orm = await openOrm(ormOptions(url, 5));
  const server = await startTestServiceServer({
    name: "notifications",
    services: SERVICE_NAMES,
    routes: createNotificationsService({ db: database(orm), assertionKey: ASSERTIONS.verifyingKey, sealingKey: SEALING_KEY, lookup: TEST_LOOKUP }),
    allow: CALLERS,
    interceptors: [domainErrorInterceptor("notifications", reasonCodes, createLogger("notifications", { level: "silent" }))],
  });
  return {
    client: (caller) => createServiceClient(notificationsV1.NotificationsService, { baseUrl: server.url, serviceToken: server.credential(caller) }),
    close: async () => {
      await server.close();
      await orm.close();
    },
  };
}

/** An event as payins hands it over: an intent's (or a checkout's) with its data built by @payin/events. */
export function intentEvent(
  merchantUuid: string,
  type: EventType,
  options: { intentUuid?: string; checkoutUuid?: string; sequence?: number; createdAt?: Date; eventUuid?: string } = {},
) {
  const eventUuid = options.eventUuid ?? uuidv7();
  const createdAt = options.createdAt ?? new Date();
  const sequence = options.sequence ?? 1;
  const checkout = type.startsWith("checkout.");
  const intentUuid = checkout ? options.intentUuid : (options.intentUuid ?? uuidv7());
  const checkoutUuid = checkout ? (options.checkoutUuid ?? uuidv7()) : options.checkoutUuid;
  return {
    eventUuid,
    merchantUuid,
    type,
    createdAt: timestampFromDate(createdAt),
    sequence: BigInt(sequence),
    intentUuid,
    checkoutUuid,
    dataJson: JSON.stringify(eventData({ id: eventUuid, type, createdAt, merchantUuid, sequence })),
  };
}

/** A person's actor assertion (as identity would sign it for the API or the merchant area). */
export function personAssertion(personUuid: string = uuidv7()): string {
  return ASSERTIONS.identity(personUuid, { permissions: ["webhook.manage"] });
}

/** The keys of graphile-worker's jobs for deliveries. */
export async function jobKeys(h: Harness): Promise<string[]> {
  const rows = await h.rows<{ key: string }>(`select key from graphile_worker._private_jobs where key like 'delivery:%' order by key`);
  return rows.map((r) => r.key);
}
