/**
 * The audit outbox's relay: sends the records identity's changes wrote to its
 * outbox (domain/audit-outbox.ts) to the merchants service's audit log
 * (AppendAuditEvents) and deletes them once merchants has answered. A batch is
 * claimed oldest first with `for update skip locked` in a transaction that ends
 * only after merchants answered: the relays of several replicas never send one
 * record at once, and a record whose delivery failed (merchants down, a lost
 * answer, a crash) stays and goes again on a later pass. Merchants keeps each
 * event once by its uuid, so sending one again is harmless.
 */
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { Database } from "@payin/db";
import type { Logger } from "@payin/logging";
import type { OutboxEvent } from "../domain/audit-outbox.js";
import { AuditOutboxRepository } from "../store/audit-outbox-repository.js";

export interface AuditRelayOptions {
  db: Database;
  /** Merchants' AppendAuditEvents. */
  append: (events: OutboxEvent[]) => Promise<void>;
  logger: Logger;
  /** Between passes when the outbox was drained (default 500 ms); a full batch is followed at once by the next. */
  intervalMs?: number;
  /** Records per pass (default 100, merchants' most). */
  batchSize?: number;
}

export interface AuditRelay {
  /** One pass: claims, sends and deletes up to a batch; answers how many were delivered. */
  runOnce(): Promise<number>;
  /** Stops the loop and waits for a pass in progress. */
  stop(): Promise<void>;
}

export const RELAY_INTERVAL_MS = 500;
export const RELAY_BATCH_SIZE = 100;

/** An outbox record as merchants' AuditEvent (AppendAuditEvents). */
export function outboxEventToPb(e: OutboxEvent) {
  return {
    eventUuid: e.eventUuid,
    actor: { kind: e.actorKind, uuid: e.actorUuid ?? "", requestId: e.requestId ?? "", osUser: e.actorOsUser ?? "" },
    action: e.action,
    targetType: e.targetType,
    targetUuid: e.targetUuid ?? "",
    outcome: "succeeded",
    errorCode: "",
    occurredAt: timestampFromDate(e.occurredAt),
  };
}

/** One pass of the relay on `db` (see the module's comment). */
export async function relayOnce(db: Database, append: (events: OutboxEvent[]) => Promise<void>, batchSize = RELAY_BATCH_SIZE): Promise<number> {
  return db.transaction(async (tx) => {
    const outbox = new AuditOutboxRepository(tx);
    const events = await outbox.claimOldest(batchSize);
    if (events.length === 0) return 0;
    await append(events);
    await outbox.delete(events.map((e) => e.eventUuid));
    return events.length;
  });
}

/**
 * Starts the relay's loop: a pass now, then after every pass that left the
 * outbox drained (or failed), another `intervalMs` later. A failed pass is
 * logged (a warning) and retried on the next.
 */
export function startAuditRelay(options: AuditRelayOptions): AuditRelay {
  const intervalMs = options.intervalMs ?? RELAY_INTERVAL_MS;
  const batchSize = options.batchSize ?? RELAY_BATCH_SIZE;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let failing = false;
  const runOnce = () => relayOnce(options.db, options.append, batchSize);
  const pass = async () => {
    let full = false;
    try {
      full = (await runOnce()) === batchSize;
      if (failing) options.logger.info("audit outbox relay delivers again");
      failing = false;
    } catch (err) {
      // Logged once per outage, not once per pass.
      if (!failing) options.logger.warn({ err }, "audit outbox relay could not deliver; the records stay queued");
      failing = true;
    }
    if (!stopped) timer = setTimeout(tick, full ? 0 : intervalMs);
  };
  const tick = () => {
    running = pass();
  };
  tick();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
