import { prepared, type Database } from "@payin/db";
import type { Logger } from "@payin/logging";

export interface HeartbeatOptions {
  /** How often this notifier says it is alive (and sweeps). */
  intervalMs: number;
  /** A notifier silent for longer than this is taken for dead: its locked jobs are handed back. */
  staleAfterMs: number;
}

const BEAT = prepared(
  "notifier_heartbeat",
  `insert into notifier_heartbeats (worker_id, started_at, beat_at) values ($1, now(), now())
   on conflict (worker_id) do update set beat_at = now()`,
);

/** Hands back what the stopped worker still holds (graphile-worker does not wait for its last job's completion or failure to be written) and forgets it. */
const FORGET = prepared(
  "notifier_heartbeat_forget",
  `with unlocked as (select graphile_worker.force_unlock_workers(array[$1::text]))
   delete from notifier_heartbeats where worker_id = $1 and exists (select 1 from unlocked)`,
);

/**
 * Claims the dead notifiers (beat older than the stale interval) and hands
 * their jobs back in the same transaction; also the `deliver` jobs locked by a
 * worker with no heartbeat at all for as long (a notifier killed between
 * locking its first jobs and its first beat). Answers the worker ids unlocked.
 */
const SWEEP = prepared<{ worker_id: string }>(
  "notifier_sweep",
  `with dead as (
     delete from notifier_heartbeats
      where worker_id in (
        select worker_id from notifier_heartbeats
         where beat_at < now() - make_interval(secs => $1::double precision / 1000)
         for update skip locked)
     returning worker_id
   ), unknown as (
     select distinct j.locked_by as worker_id
       from graphile_worker.jobs j
      where j.task_identifier = 'deliver'
        and j.locked_by is not null
        and j.locked_at < now() - make_interval(secs => $1::double precision / 1000)
        and not exists (select 1 from notifier_heartbeats h where h.worker_id = j.locked_by)
   ), all_dead as (
     select worker_id from dead union select worker_id from unknown
   )
   select worker_id, graphile_worker.force_unlock_workers(array[worker_id]) from all_dead`,
);

/**
 * The notifier's liveness row and the sweeper of dead notifiers' jobs.
 * graphile-worker leaves a crashed worker's jobs locked for 4 hours; each
 * notifier beats every `intervalMs` and, on the same tick, unlocks the jobs of
 * any notifier whose beat is older than `staleAfterMs`, so a killed notifier's
 * deliveries are taken up again within seconds.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private tick: Promise<unknown> = Promise.resolve();
  private lastBeatAt: Date | null = null;
  private lastError: string | null = null;

  constructor(
    private readonly db: Database,
    private readonly workerId: string,
    private readonly options: HeartbeatOptions,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.db.query(BEAT, [this.workerId]);
    this.lastBeatAt = new Date();
    this.timer = setInterval(() => {
      this.tick = this.tick.then(() => this.beatAndSweep());
    }, this.options.intervalMs);
    this.tick = this.beatAndSweep();
  }

  /** One beat and one sweep (exposed for tests). */
  async beatAndSweep(): Promise<string[]> {
    try {
      await this.db.query(BEAT, [this.workerId]);
      this.lastBeatAt = new Date();
      const rows = await this.db.query(SWEEP, [this.options.staleAfterMs]);
      const unlocked = rows.map((row) => row.worker_id).filter((id) => id !== this.workerId);
      if (unlocked.length > 0) this.logger.warn({ workers: unlocked }, "unlocked the jobs of notifiers that stopped beating");
      this.lastError = null;
      return unlocked;
    } catch (error) {
      this.lastError = error instanceof Error ? error.message : String(error);
      this.logger.error({ err: error }, "notifier heartbeat failed");
      return [];
    }
  }

  status(): { worker_id: string; last_beat_at: string | null; last_error: string | null } {
    return { worker_id: this.workerId, last_beat_at: this.lastBeatAt?.toISOString() ?? null, last_error: this.lastError };
  }

  /**
   * Once the worker has stopped: stops beating, unlocks whatever jobs the
   * worker still holds (an attempt cut short by the stop, a completion not yet
   * written: such a job runs again and finds its delivery as it is) and
   * removes the row.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.tick;
    await this.db.query(FORGET, [this.workerId]).catch((error: unknown) => this.logger.error({ err: error }, "could not hand back the stopped notifier's jobs"));
  }
}
