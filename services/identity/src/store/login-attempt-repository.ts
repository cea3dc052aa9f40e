import type { EntityManager } from "@payin/db";
import type { AttemptOutcome, FailureCount, LoginAttemptStore, Reservation } from "../domain/stores.js";

/**
 * Attempts are kept this long (for investigating an attack, far beyond any
 * throttling window), then purged now and then.
 */
export const ATTEMPT_RETENTION_MS = 30 * 24 * 60 * 60_000;
/** One reservation in this many (per process) purges old attempts. */
const PURGE_EVERY = 200;
let reservations = 0;

const FAILURE = `outcome in ('pending', 'failed')`;

/** LoginAttemptStore on PostgreSQL, shared by every replica. */
export class LoginAttemptRepository implements LoginAttemptStore {
  constructor(private readonly em: EntityManager) {}

  async reserve(input: Parameters<LoginAttemptStore["reserve"]>[0]): Promise<Reservation> {
    if (++reservations % PURGE_EVERY === 0) await this.purge(input.at);
    // Committed before counting, so concurrent attempts always see each other.
    const [inserted] = await this.em.execute(
      `insert into login_attempts (email, client_ip, challenge_uuid, attempted_at, outcome)
       values (?, ?, ?, ?, 'pending') returning attempt_id::text`,
      [input.email, input.clientIp, input.challengeUuid, input.at],
    );
    const id = inserted!.attempt_id as string;
    const { email, clientIp, limits } = input;
    // Consecutive failures start after the last completed sign-in (attempt ids
    // grow with time); for the pair, the last one from that client IP.
    const [row] = await this.em.execute(
      `with
         account as (
           select attempted_at from login_attempts
            where email = ? and attempted_at > ? and ${FAILURE} and attempt_id <> ?::bigint
              and attempt_id > coalesce((select max(attempt_id) from login_attempts where email = ? and outcome = 'succeeded'), 0)),
         pair as (
           select attempted_at from login_attempts
            where email = ? and client_ip is not distinct from ? and attempted_at > ? and ${FAILURE} and attempt_id <> ?::bigint
              and attempt_id > coalesce((select max(attempt_id) from login_attempts
                                          where email = ? and client_ip is not distinct from ? and outcome = 'succeeded'), 0)),
         ip as (
           select attempted_at from login_attempts
            where client_ip = ? and attempted_at > ? and outcome in ('pending', 'failed', 'forgiven') and attempt_id <> ?::bigint)
       select
         (select count(*)::int from account) as account_count,
         (select max(attempted_at) from account) as account_latest,
         (select attempted_at from account order by attempted_at desc offset ? limit 1) as account_nth,
         (select count(*)::int from pair) as pair_count,
         (select max(attempted_at) from pair) as pair_latest,
         (select attempted_at from pair order by attempted_at desc offset ? limit 1) as pair_nth,
         (select count(*)::int from ip) as ip_count,
         (select max(attempted_at) from ip) as ip_latest,
         (select attempted_at from ip order by attempted_at desc offset ? limit 1) as ip_nth,
         (select count(*)::int from login_attempts
           where challenge_uuid = ? and ${FAILURE} and attempt_id <> ?::bigint) as challenge_failures`,
      [
        email, input.accountSince, id, email,
        email, clientIp, input.pairSince, id, email, clientIp,
        clientIp, input.ipSince, id,
        limits.account - 1, limits.pair - 1, limits.ip - 1,
        input.challengeUuid, id,
      ],
    );
    const count = (prefix: string): FailureCount => ({
      count: row![`${prefix}_count`] as number,
      latestAt: asDate(row![`${prefix}_latest`]),
      nthLatestAt: asDate(row![`${prefix}_nth`]),
    });
    return {
      attemptId: id,
      account: count("account"),
      pair: count("pair"),
      ip: count("ip"),
      challengeFailures: row!.challenge_failures as number,
    };
  }

  async settle(attemptId: string, outcome: AttemptOutcome): Promise<void> {
    await this.em.execute(`update login_attempts set outcome = ? where attempt_id = ?::bigint`, [outcome, attemptId]);
  }

  async forgive(email: string): Promise<number> {
    const rows = await this.em.execute(
      `update login_attempts set outcome = 'forgiven' where email = ? and outcome = 'failed' returning attempt_id`,
      [email],
    );
    return rows.length;
  }

  /** Deletes attempts older than the retention period before `now`. */
  async purge(now: Date): Promise<void> {
    await this.em.execute(`delete from login_attempts where attempted_at < ?`, [new Date(now.getTime() - ATTEMPT_RETENTION_MS)]);
  }
}

function asDate(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value : new Date(value as string);
}
