import { sql, type Queryable } from "@payin/db";
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

/** What reserve counts: per scope the failures, the latest and the nth latest (timestamps as text). */
type CountsRow = { [K in `${"account" | "pair" | "ip"}_count`]: number } & {
  [K in `${"account" | "pair" | "ip"}_${"latest" | "nth"}`]: string | null;
} & { challenge_failures: number };

/** LoginAttemptStore on PostgreSQL, shared by every replica. */
export class LoginAttemptRepository implements LoginAttemptStore {
  constructor(private readonly db: Queryable) {}

  async reserve(input: Parameters<LoginAttemptStore["reserve"]>[0]): Promise<Reservation> {
    if (++reservations % PURGE_EVERY === 0) await this.purge(input.at);
    // Committed before counting, so concurrent attempts always see each other.
    const [inserted] = await this.db.query(sql<{ attempt_id: string }>(`insert into login_attempts (email, client_ip, challenge_uuid, attempted_at, outcome)
       values ($1, $2, $3, $4, 'pending') returning attempt_id::text`),
      [input.email, input.clientIp, input.challengeUuid, input.at],
    );
    const id = inserted!.attempt_id;
    const { email, clientIp, limits } = input;
    // Consecutive failures start after the last completed sign-in (attempt ids
    // grow with time); for the pair, the last one from that client IP.
    const [row] = await this.db.query(sql<CountsRow>(`with
         account as (
           select attempted_at from login_attempts
            where email = $1 and attempted_at > $2 and ${FAILURE} and attempt_id <> $3::bigint
              and attempt_id > coalesce((select max(attempt_id) from login_attempts where email = $4 and outcome = 'succeeded'), 0)),
         pair as (
           select attempted_at from login_attempts
            where email = $5 and client_ip is not distinct from $6 and attempted_at > $7 and ${FAILURE} and attempt_id <> $8::bigint
              and attempt_id > coalesce((select max(attempt_id) from login_attempts
                                          where email = $9 and client_ip is not distinct from $10 and outcome = 'succeeded'), 0)),
         ip as (
           select attempted_at from login_attempts
            where client_ip = $11 and attempted_at > $12 and outcome in ('pending', 'failed', 'forgiven') and attempt_id <> $13::bigint)
       select
         (select count(*)::int from account) as account_count,
         (select max(attempted_at) from account) as account_latest,
         (select attempted_at from account order by attempted_at desc offset $14 limit 1) as account_nth,
         (select count(*)::int from pair) as pair_count,
         (select max(attempted_at) from pair) as pair_latest,
         (select attempted_at from pair order by attempted_at desc offset $15 limit 1) as pair_nth,
         (select count(*)::int from ip) as ip_count,
         (select max(attempted_at) from ip) as ip_latest,
         (select attempted_at from ip order by attempted_at desc offset $16 limit 1) as ip_nth,
         (select count(*)::int from login_attempts
           where challenge_uuid = $17 and ${FAILURE} and attempt_id <> $18::bigint) as challenge_failures`),
      [
        email, input.accountSince, id, email,
        email, clientIp, input.pairSince, id, email, clientIp,
        clientIp, input.ipSince, id,
        limits.account - 1, limits.pair - 1, limits.ip - 1,
        input.challengeUuid, id,
      ],
    );
    const count = (prefix: "account" | "pair" | "ip"): FailureCount => ({
      count: row![`${prefix}_count`],
      latestAt: asDate(row![`${prefix}_latest`]),
      nthLatestAt: asDate(row![`${prefix}_nth`]),
    });
    return {
      attemptId: id,
      account: count("account"),
      pair: count("pair"),
      ip: count("ip"),
      challengeFailures: row!.challenge_failures,
    };
  }

  async settle(attemptId: string, outcome: AttemptOutcome): Promise<void> {
    await this.db.query(sql(`update login_attempts set outcome = $1 where attempt_id = $2::bigint`), [outcome, attemptId]);
  }

  async forgive(email: string): Promise<number> {
    const rows = await this.db.query(sql(`update login_attempts set outcome = 'forgiven' where email = $1 and outcome = 'failed' returning attempt_id`),
      [email],
    );
    return rows.length;
  }

  /** Deletes attempts older than the retention period before `now`. */
  async purge(now: Date): Promise<void> {
    await this.db.query(sql(`delete from login_attempts where attempted_at < $1`), [new Date(now.getTime() - ATTEMPT_RETENTION_MS)]);
  }
}

function asDate(value: string | null): Date | null {
  return value === null ? null : new Date(value);
}
