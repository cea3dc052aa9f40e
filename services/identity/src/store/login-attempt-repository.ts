import type { EntityManager } from "@payin/db";
import type { AttemptOutcome, LoginAttemptStore } from "../domain/stores.js";

/** Attempts older than the window plus this margin are purged now and then. */
const PURGE_MARGIN_MS = 60 * 60_000;
/** One reservation in this many (per process) purges old attempts. */
const PURGE_EVERY = 200;
let reservations = 0;

/** LoginAttemptStore on PostgreSQL, shared by every replica. */
export class LoginAttemptRepository implements LoginAttemptStore {
  constructor(private readonly em: EntityManager) {}

  async reserve(input: { email: string; clientIp: string | null; at: Date; since: Date }): Promise<{
    attemptId: string;
    emailFailures: number;
    ipFailures: number;
  }> {
    if (++reservations % PURGE_EVERY === 0) {
      await this.em.execute(`delete from login_attempts where attempted_at < ?`, [new Date(input.since.getTime() - PURGE_MARGIN_MS)]);
    }
    // Committed before counting, so concurrent attempts always see each other.
    const [inserted] = await this.em.execute(
      `insert into login_attempts (email, client_ip, attempted_at, outcome) values (?, ?, ?, 'pending') returning attempt_id::text`,
      [input.email, input.clientIp, input.at],
    );
    const [counts] = await this.em.execute(
      `select
         (select count(*)::int from login_attempts
           where email = ? and attempted_at > ? and outcome in ('pending', 'failed')) as email_failures,
         (select count(*)::int from login_attempts
           where client_ip = ? and attempted_at > ? and outcome in ('pending', 'failed', 'forgiven')) as ip_failures`,
      [input.email, input.since, input.clientIp, input.since],
    );
    return {
      attemptId: inserted!.attempt_id as string,
      emailFailures: counts!.email_failures as number,
      ipFailures: counts!.ip_failures as number,
    };
  }

  async settle(attemptId: string, outcome: AttemptOutcome, forgive?: { email: string; since: Date }): Promise<void> {
    if (!forgive) {
      await this.em.execute(`update login_attempts set outcome = ? where attempt_id = ?::bigint`, [outcome, attemptId]);
      return;
    }
    // One statement, one commit: the outcome, and the email's earlier failures forgiven.
    await this.em.execute(
      `with settled as (update login_attempts set outcome = ? where attempt_id = ?::bigint)
       update login_attempts set outcome = 'forgiven'
        where email = ? and attempted_at > ? and outcome = 'failed' and attempt_id <> ?::bigint`,
      [outcome, attemptId, forgive.email, forgive.since, attemptId],
    );
  }
}
