import { dateOrNull, prepared, sql, type Database, type Queryable } from "@payin/db";
import { coalesce } from "@payin/rpc";
import type { SealedSecrets } from "../domain/model.js";
import type { AttemptDecision } from "../domain/retry-schedule.js";
import { DELIVER_TASK, DELIVERY_JOB_MAX_ATTEMPTS, deliveryJobKey as jobKey, JOB_SCHEMA } from "../store/job-queue.js";

/** A delivery as the notifier attempts it: with its event and its endpoint. */
export interface DeliveryToAttempt {
  deliveryUuid: string;
  status: "pending" | "succeeded" | "failed";
  nextAttemptAt: Date | null;
  roundAttempts: number;
  eventUuid: string;
  eventType: string;
  eventCreatedAt: Date;
  data: string;
  endpointUuid: string;
  url: string;
  enabled: boolean;
  secrets: SealedSecrets;
}

export interface AttemptRecord {
  attemptUuid: string;
  deliveryUuid: string;
  attemptedAt: Date;
  statusCode: number;
  durationMs: number;
  responseExcerpt: string;
  error: string;
}


/** A delivery with its event and endpoint, as LOAD answers it. */
type LoadRow = {
  delivery_uuid: string;
  status: DeliveryToAttempt["status"];
  next_attempt_at: string | null;
  round_attempts: number;
  event_uuid: string;
  type: string;
  created_at: string;
  data: string;
  endpoint_uuid: string;
  url: string;
  enabled: boolean;
  secret_sealed: Buffer;
  previous_secret_sealed: Buffer | null;
  previous_secret_expires_at: string | null;
};

const LOAD = prepared<LoadRow>(
  "notifier_load_deliveries",
  `select d.delivery_uuid, d.status, d.next_attempt_at, d.round_attempts,
          e.event_uuid, e.type, e.created_at, e.data,
          w.endpoint_uuid, w.url, w.enabled, w.secret_sealed, w.previous_secret_sealed, w.previous_secret_expires_at
     from deliveries d
     join events e on e.event_uuid = d.event_uuid
     join webhook_endpoints w on w.endpoint_uuid = d.endpoint_uuid
    where d.delivery_uuid = any($1::uuid[])`,
);

/** Most deliveries loaded, or successes recorded, in one statement. */
const MAX_BATCH = 100;

/** Adds (or moves) a delivery's job: graphile-worker's add_job, keyed by the delivery, in the caller's transaction. */
const ADD_JOB = prepared(
  "notifier_add_job",
  `select 1 from ${JOB_SCHEMA}.add_job('${DELIVER_TASK}', json_build_object('delivery_uuid', $1::text), run_at := $2::timestamptz, job_key := $3::text, max_attempts := ${DELIVERY_JOB_MAX_ATTEMPTS})`,
);

const INSERT_ATTEMPT = prepared(
  "notifier_insert_attempt",
  `insert into delivery_attempts (attempt_uuid, delivery_uuid, attempted_at, status_code, duration_ms, response_excerpt, error)
   values ($1, $2, $3, $4, $5, $6, $7)`,
);

/**
 * A success in one statement (the hot path): the attempt, the delivery
 * succeeded if it was still pending, the endpoint's failing mark cleared.
 * Answers a row when the delivery was pending.
 */
const RECORD_SUCCESSES = prepared<{ delivery_uuid: string }>(
  "notifier_record_successes",
  `with a as (
     select * from unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[])
       as a(attempt_uuid, delivery_uuid, attempted_at, status_code, duration_ms, response_excerpt, error)
   ), attempt as (
     insert into delivery_attempts (attempt_uuid, delivery_uuid, attempted_at, status_code, duration_ms, response_excerpt, error)
     select attempt_uuid, delivery_uuid, attempted_at, status_code, duration_ms, response_excerpt, error from a
   ), delivery as (
     update deliveries d
        set status = 'succeeded', attempt_count = attempt_count + 1, round_attempts = round_attempts + 1, next_attempt_at = null, updated_at = a.attempted_at
       from a
      where d.delivery_uuid = a.delivery_uuid and d.status = 'pending'
     returning d.delivery_uuid, d.endpoint_uuid
   ), endpoint as (
     update webhook_endpoints set failing_since = null
      where endpoint_uuid in (select endpoint_uuid from delivery) and failing_since is not null
   )
   select delivery_uuid from delivery`,
);

const LOCK_DELIVERY = prepared<{ status: string; round_attempts: number; endpoint_uuid: string }>(
  "notifier_lock_delivery",
  `select status, round_attempts, endpoint_uuid from deliveries where delivery_uuid = $1 for update`,
);

const COUNT_ATTEMPT = prepared(
  "notifier_count_attempt",
  `update deliveries set attempt_count = attempt_count + 1, round_attempts = round_attempts + 1, updated_at = $2 where delivery_uuid = $1`,
);

const FINISH = prepared(
  "notifier_finish_delivery",
  `update deliveries set status = $2, next_attempt_at = null, updated_at = $3 where delivery_uuid = $1 and status = 'pending'`,
);

const SCHEDULE = prepared(
  "notifier_schedule_delivery",
  `update deliveries set next_attempt_at = $2, updated_at = $3 where delivery_uuid = $1`,
);

const ENDPOINT_SUCCEEDED = prepared(
  "notifier_endpoint_succeeded",
  `update webhook_endpoints set failing_since = null where endpoint_uuid = $1 and failing_since is not null`,
);

const ENDPOINT_FAILED = prepared<{ failing_since: string }>(
  "notifier_endpoint_failed",
  `update webhook_endpoints set failing_since = coalesce(failing_since, $2) where endpoint_uuid = $1 returning failing_since`,
);

const DISABLE_ENDPOINT = sql(
  `update webhook_endpoints
      set enabled = false, disabled_reason = $2, disabled_at = $3, updated_at = $3
    where endpoint_uuid = $1 and enabled`,
);

/**
 * The pending deliveries of an endpoint just disabled, failed; those another
 * attempt holds are skipped (waiting for them, while they wait for the
 * endpoint this transaction holds, would deadlock): their own attempt is
 * recorded, and the next one finds the endpoint disabled and fails them.
 */
const FAIL_PENDING_OF_ENDPOINT = sql(
  `update deliveries set status = 'failed', next_attempt_at = null, updated_at = $2
    where delivery_uuid in (select delivery_uuid from deliveries where endpoint_uuid = $1 and status = 'pending' for update skip locked)`,
);

/** The notifier's reads and writes of the notifications schema (and its graphile-worker jobs). */
export class DeliveryStore {
  /**
   * Loads, and successes, of the deliveries running together (the jobs of one
   * fetch of the queue) share one statement each: at a thousand deliveries a
   * second, a statement per delivery cost the notifier and PostgreSQL more
   * than the deliveries.
   */
  private readonly loadTogether = coalesce((ids: string[]) => this.loadMany(ids), { maxBatch: MAX_BATCH });
  private readonly succeedTogether = coalesce((attempts: AttemptRecord[]) => this.recordSuccesses(attempts), { maxBatch: MAX_BATCH });

  constructor(private readonly db: Database) {}

  load(deliveryUuid: string): Promise<DeliveryToAttempt | null> {
    return this.loadTogether(deliveryUuid);
  }

  private async loadMany(deliveryUuids: string[]): Promise<(DeliveryToAttempt | null)[]> {
    const rows = await this.db.query(LOAD, [deliveryUuids]);
    const byUuid = new Map(rows.map((row) => [row.delivery_uuid, row]));
    return deliveryUuids.map((uuid) => {
      const row = byUuid.get(uuid);
      return row ? deliveryOf(row) : null;
    });
  }

  /** Whether each success was recorded (false: its delivery was no longer pending). */
  private async recordSuccesses(attempts: AttemptRecord[]): Promise<boolean[]> {
    const column = <T>(pick: (a: AttemptRecord) => T) => attempts.map(pick);
    const rows = await this.db.query(RECORD_SUCCESSES, [
      column((a) => a.attemptUuid), column((a) => a.deliveryUuid), column((a) => a.attemptedAt), column((a) => a.statusCode),
      column((a) => a.durationMs), column((a) => a.responseExcerpt), column((a) => a.error),
    ]);
    const recorded = new Set(rows.map((row) => row.delivery_uuid));
    return attempts.map((a) => recorded.has(a.deliveryUuid));
  }

  /** Queues the delivery's job again at `runAt` (its key replaces the running one's: one job per delivery). */
  async requeue(deliveryUuid: string, runAt: Date, tx: Queryable = this.db): Promise<void> {
    await tx.query(ADD_JOB, [deliveryUuid, runAt, jobKey(deliveryUuid)]);
  }

  /** Marks a pending delivery failed without an attempt (its endpoint is disabled). */
  async failUnattempted(deliveryUuid: string, now: Date): Promise<void> {
    await this.db.query(FINISH, [deliveryUuid, "failed", now]);
  }

  /**
   * Records one attempt and what follows from it, in one transaction: the
   * attempt row; then, if the delivery is still pending, its counts and the
   * decision `decide` makes from its round's attempts (this one included) and
   * from since when the endpoint has been failing (a success clears that, a
   * failure starts it). A success (decided without either) shares one statement with the successes recorded together.
   * Answers the decision taken, or null when the delivery was no longer pending.
   */
  async recordAttempt<D extends AttemptDecision>(
    attempt: AttemptRecord,
    success: boolean,
    decide: (roundAttempts: number, failingSince: Date | null) => D,
  ): Promise<D | null> {
    const values = [
      attempt.attemptUuid,
      attempt.deliveryUuid,
      attempt.attemptedAt,
      attempt.statusCode,
      attempt.durationMs,
      attempt.responseExcerpt,
      attempt.error,
    ];
    if (success) {
      const decision = decide(0, null);
      if (decision.kind === "succeeded") {
        return (await this.succeedTogether(attempt)) ? decision : null;
      }
    }
    return this.db.transaction(async (tx) => {
      const now = attempt.attemptedAt;
      await tx.query(INSERT_ATTEMPT, values);
      const [delivery] = await tx.query(LOCK_DELIVERY, [attempt.deliveryUuid]);
      if (!delivery || delivery.status !== "pending") return null;
      await tx.query(COUNT_ATTEMPT, [attempt.deliveryUuid, now]);
      let failingSince: Date | null = null;
      if (success) await tx.query(ENDPOINT_SUCCEEDED, [delivery.endpoint_uuid]);
      else {
        const [endpoint] = await tx.query(ENDPOINT_FAILED, [delivery.endpoint_uuid, now]);
        failingSince = endpoint ? new Date(endpoint.failing_since) : null;
      }
      const decision = decide(delivery.round_attempts + 1, failingSince);
      switch (decision.kind) {
        case "succeeded":
          await tx.query(FINISH, [attempt.deliveryUuid, "succeeded", now]);
          break;
        case "give_up":
          await tx.query(FINISH, [attempt.deliveryUuid, "failed", now]);
          break;
        case "retry":
          await tx.query(SCHEDULE, [attempt.deliveryUuid, decision.at, now]);
          await tx.query(ADD_JOB, [attempt.deliveryUuid, decision.at, jobKey(attempt.deliveryUuid)]);
          break;
        case "disable":
          await tx.query(DISABLE_ENDPOINT, [delivery.endpoint_uuid, decision.reason, now]);
          await tx.query(FAIL_PENDING_OF_ENDPOINT, [delivery.endpoint_uuid, now]);
          break;
      }
      return decision;
    });
  }
}

function deliveryOf(row: LoadRow): DeliveryToAttempt {
  return {
    deliveryUuid: row.delivery_uuid,
    status: row.status,
    nextAttemptAt: dateOrNull(row.next_attempt_at),
    roundAttempts: row.round_attempts,
    eventUuid: row.event_uuid,
    eventType: row.type,
    eventCreatedAt: new Date(row.created_at),
    data: row.data,
    endpointUuid: row.endpoint_uuid,
    url: row.url,
    enabled: row.enabled,
    secrets: {
      secretSealed: row.secret_sealed,
      previousSecretSealed: row.previous_secret_sealed,
      previousSecretExpiresAt: dateOrNull(row.previous_secret_expires_at),
    },
  };
}
