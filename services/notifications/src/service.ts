import type { KeyObject } from "node:crypto";
import type { ConnectRouter } from "@connectrpc/connect";
import type { ConfigOf } from "@payin/config";
import { migrate, openDatabase, startAuditRelay, systemClock, type Clock, type Database } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { createLogger, type Logger } from "@payin/logging";
import { merchantsV1, notificationsV1 } from "@payin/proto";
import { appendToAuditLog, createServiceClient, domainErrorInterceptor, requestLogFields, serveService, type StartService } from "@payin/rpc";
import type { configSchema } from "./config.js";
import type { Deps } from "./domain/deps.js";
import { checkWebhookUrl, dnsServersLookup, type HostLookup } from "./domain/webhook-url.js";
import { CALLERS } from "./rpc/callers.js";
import { notificationsHandlers } from "./rpc/notifications-handlers.js";
import { reasonCodes } from "./rpc/reason-codes.js";
import { migrateQueue } from "./notifier/queue.js";
import { ormOptions } from "./store/orm.js";
import { startRetentionPurge } from "./store/retention-purge.js";
import { unitOfWork } from "./store/unit-of-work.js";

export const SERVICE_NAMES = [notificationsV1.NotificationsService.typeName];

/** The defaults of the settings (config.ts). */
export const DEFAULT_RETENTION_DAYS = 30;
export const DEFAULT_ENDPOINTS_PER_MERCHANT = 16;

/** What the notifications service is built from. */
export interface NotificationsPorts {
  /** The notifications schema (openDatabase of @payin/db); graphile-worker's schema installed beside it. */
  db: Database;
  /** Identity's public key, which every change's actor assertion is verified with (ACTOR_ASSERTION_PUBLIC_KEY). */
  assertionKey: KeyObject;
  /** The key endpoints' signing secrets are sealed with (WEBHOOK_SECRET_KEY). */
  sealingKey: Buffer;
  /** What every instant written is read from (the system's clock when not given). */
  clock?: Clock;
  /** WEBHOOK_ALLOW_INSECURE_URLS (false when not given). */
  allowInsecureUrls?: boolean;
  /** How webhook URLs' host names are resolved (the system's resolver when not given). */
  lookup?: HostLookup;
  /** EVENT_RETENTION_DAYS. */
  retentionDays?: number;
  /** WEBHOOK_ENDPOINTS_PER_MERCHANT. */
  endpointLimit?: number;
}

/** The domain's dependencies from the ports. */
export function notificationsDeps(ports: NotificationsPorts): Deps {
  const clock = ports.clock ?? systemClock;
  const allowInsecure = ports.allowInsecureUrls ?? false;
  return {
    uow: unitOfWork(ports.db),
    now: () => clock.now(),
    newUuid: uuidv7,
    retentionDays: ports.retentionDays ?? DEFAULT_RETENTION_DAYS,
    endpointLimit: ports.endpointLimit ?? DEFAULT_ENDPOINTS_PER_MERCHANT,
    sealingKey: ports.sealingKey,
    checkUrl: (url) => checkWebhookUrl(url, { allowInsecure, lookup: ports.lookup }),
  };
}

/** Builds the notifications service from its ports: mountable on a real server (startService) or an in-memory transport (tests). */
export function createNotificationsService(ports: NotificationsPorts) {
  const deps = notificationsDeps(ports);
  return (router: ConnectRouter) => {
    router.service(notificationsV1.NotificationsService, notificationsHandlers(deps, ports.assertionKey));
  };
}

export type NotificationsConfig = ConfigOf<typeof configSchema>;

/** What startService would otherwise make itself. */
export interface NotificationsDeps {
  logger?: Logger;
  /** The clock every instant written is read from (default: the system's). */
  clock?: Clock;
}

/**
 * The notifications service's composition root: migrations (MIGRATE_ON_BOOT:
 * its schema, then graphile-worker's, which RecordEvents adds jobs to), its
 * Database, the audit outbox's relay to merchants, the retention purge, the
 * RPC server with its callers. (The notifier is its own process: notifier-main.ts.)
 */
export const startService: StartService<NotificationsConfig, NotificationsDeps> = async (config, deps = {}) => {
  const logger = deps.logger ?? createLogger("notifications", { level: config.LOG_LEVEL, mixin: requestLogFields });
  if (config.MIGRATE_ON_BOOT === "true") await migrate(ormOptions(config.DATABASE_URL));
  const db = await openDatabase(ormOptions(config.DATABASE_URL, config.DB_POOL_MAX));
  if (config.MIGRATE_ON_BOOT === "true") {
    // The delivery queue's schema, one process at a time (replicas and notifiers may start together).
    try {
      await migrateQueue(db, config.DATABASE_URL, logger);
    } catch (error) {
      await db.close();
      throw error;
    }
  }
  const ports: NotificationsPorts = {
    db,
    assertionKey: config.ACTOR_ASSERTION_PUBLIC_KEY,
    sealingKey: config.WEBHOOK_SECRET_KEY,
    clock: deps.clock,
    allowInsecureUrls: config.WEBHOOK_ALLOW_INSECURE_URLS === "true",
    lookup: config.WEBHOOK_DNS_SERVERS.length > 0 ? dnsServersLookup(config.WEBHOOK_DNS_SERVERS) : undefined,
    retentionDays: config.EVENT_RETENTION_DAYS,
    endpointLimit: config.WEBHOOK_ENDPOINTS_PER_MERCHANT,
  };
  // Endpoint changes are audited through the outbox (@payin/db, audit-outbox.ts), delivered to merchants' log.
  const merchantsClient = createServiceClient(merchantsV1.MerchantsService, { baseUrl: config.MERCHANTS_URL, serviceToken: config.SERVICE_CREDENTIAL });
  const relay = startAuditRelay({ db, append: appendToAuditLog(merchantsClient), logger });
  const purge = startRetentionPurge({ deps: notificationsDeps(ports), logger });
  return serveService({
    name: "notifications",
    services: SERVICE_NAMES,
    routes: createNotificationsService(ports),
    interceptors: [domainErrorInterceptor("notifications", reasonCodes, logger)],
    callers: config.SERVICE_CALLER_DIGESTS,
    allow: CALLERS,
    host: config.HOST,
    port: config.NOTIFICATIONS_PORT,
    logger,
    onClose: async () => {
      await purge.stop();
      await relay.stop();
      await db.close();
    },
  });
};
