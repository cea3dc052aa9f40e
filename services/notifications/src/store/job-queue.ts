/**
 * The delivery queue: graphile-worker's jobs (its own schema, installed by its
 * migrations), one `deliver` job per delivery to attempt, keyed by the
 * delivery so that queueing one again replaces its waiting job instead of
 * adding a second. Jobs are added in the transaction that makes or restarts
 * the delivery: a delivery is never pending without its job. The notifier
 * (notifier-main.ts) runs them.
 */
import { prepared, sql, type Queryable } from "@payin/db";
import { runMigrations, Logger } from "graphile-worker";
import type { DueDelivery, JobQueue } from "../domain/model.js";

/** graphile-worker's schema (its default). */
export const JOB_SCHEMA = "graphile_worker";
/** The task that attempts one delivery. */
export const DELIVER_TASK = "deliver";

/** A delivery job's payload. */
export interface DeliverPayload {
  delivery_uuid: string;
}

/** The job key of a delivery's job. */
export function deliveryJobKey(deliveryUuid: string): string {
  return `delivery:${deliveryUuid}`;
}

/** Installs or upgrades graphile-worker's schema (idempotent): before the service takes events or the notifier runs jobs. */
export async function installJobQueue(databaseUrl: string, log?: (level: string, message: string) => void): Promise<void> {
  const logger = new Logger(() => (level, message) => log?.(level, message));
  await runMigrations({ connectionString: databaseUrl, schema: JOB_SCHEMA, logger });
}

/**
 * Tries of one delivery job before graphile-worker gives it up. A try fails
 * only when the notifier cannot record (the database unavailable, the notifier
 * stopped mid-attempt): the receiver's answers are the delivery's own schedule.
 * With graphile-worker's backoff (at most about 6 h apart) this keeps a job
 * for months, so no pending delivery is left without one.
 */
export const DELIVERY_JOB_MAX_ATTEMPTS = 1000;

// Every job of a batch in one call (add_jobs with an array of job specs: graphile-worker 0.17's SQL API).
// Prepared: RecordEvents runs it for every batch with new deliveries.
const ENQUEUE = prepared("notifications_jobs_enqueue", `
  select count(*) from ${JOB_SCHEMA}.add_jobs(array(
    select row('${DELIVER_TASK}', json_build_object('delivery_uuid', u), null, due, ${DELIVERY_JOB_MAX_ATTEMPTS}, 'delivery:' || u, null, null)::${JOB_SCHEMA}.job_spec
      from unnest($1::uuid[], $2::timestamptz[]) as j(u, due)))`);
const DROP = sql(`select count(${JOB_SCHEMA}.remove_job('delivery:' || u)) from unnest($1::uuid[]) as u`);

/** JobQueue on graphile-worker's SQL API, in the caller's transaction. */
export class GraphileJobQueue implements JobQueue {
  constructor(private readonly db: Queryable) {}

  async enqueue(deliveries: readonly DueDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.db.query(ENQUEUE, [deliveries.map((d) => d.deliveryUuid), deliveries.map((d) => d.runAt.toISOString())]);
  }

  async drop(deliveryUuids: readonly string[]): Promise<void> {
    if (deliveryUuids.length === 0) return;
    await this.db.query(DROP, [deliveryUuids]);
  }
}
