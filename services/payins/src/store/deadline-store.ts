import { sql, type Database } from "@payin/db";
import { deadlineOutcome } from "../domain/intent-events.js";
import type { TransferEvidence } from "../domain/settlement.js";
import { intentOutboxEvent, type OutboxEvent } from "../events/outbox-events.js";
import { outboxColumns } from "./event-outbox.js";
import { EVIDENCE_COLUMNS, evidenceOnlyFromRow, type EvidenceRow } from "./observation-store.js";
import { INTENT_COLUMNS, toIntent, type IntentRow } from "./pay-in-repository.js";

/**
 * Unpaid intents whose deadline passed and whose deadline_passed event is not
 * written yet, oldest deadline first, locked (the partial index
 * pay_in_intents_deadline_due_idx); rows another scanner or an observation
 * holds are skipped, and taken on a later pass.
 */
const DUE = sql<IntentRow & { event_sequence: number }>(
  `select ${INTENT_COLUMNS}, event_sequence from pay_in_intents
    where deadline_event_at is null and status <> 'paid' and expires_at <= $1
    order by expires_at limit $2 for no key update skip locked`,
);

const EVIDENCE_OF_MANY = sql<EvidenceRow & { intent_uuid: string }>(
  `select intent_uuid, ${EVIDENCE_COLUMNS} from pay_in_transfers where intent_uuid = any($1::uuid[])`,
);

/** Marks the intents told ($2) and counts the event, and writes the events ($3–$10), in one statement. */
const MARK_AND_WRITE = sql(`with marked as (
         update pay_in_intents set deadline_event_at = $2, event_sequence = event_sequence + 1 where intent_uuid = any($1::uuid[]))
       insert into event_outbox (event_uuid, merchant_uuid, type, sequence, intent_uuid, checkout_uuid, created_at, data)
       select * from unnest($3::uuid[], $4::uuid[], $5::text[], $6::bigint[], $7::uuid[], $8::uuid[], $9::timestamptz[], $10::text[])`);

/**
 * One pass of the deadline scan: up to `limit` intents whose deadline passed
 * unpaid each get their pay_in_intent.deadline_passed event (unpaid or
 * underpaid, with what was received; the status does not change) and are
 * marked, in one transaction, so each is told once, however many scanners run.
 * Answers how many were told.
 */
export async function tellPassedDeadlines(db: Database, now: Date, limit: number): Promise<number> {
  return db.transaction(async (trx) => {
    const rows = await trx.query(DUE, [now, limit]);
    if (rows.length === 0) return 0;
    const uuids = rows.map((r) => r.intent_uuid);
    const evidence = new Map<string, TransferEvidence[]>();
    for (const row of await trx.query(EVIDENCE_OF_MANY, [uuids])) {
      const list = evidence.get(row.intent_uuid) ?? [];
      list.push(evidenceOnlyFromRow(row));
      evidence.set(row.intent_uuid, list);
    }
    const events: OutboxEvent[] = rows.map((row) => {
      const intent = toIntent(row);
      const outcome = deadlineOutcome(intent, evidence.get(intent.intentUuid) ?? []);
      return intentOutboxEvent(intent, row.event_sequence + 1, now, { type: "pay_in_intent.deadline_passed", ...outcome });
    });
    await trx.query(MARK_AND_WRITE, [uuids, now, ...outboxColumns(events)]);
    return rows.length;
  });
}
