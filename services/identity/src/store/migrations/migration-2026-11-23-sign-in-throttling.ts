import { Migration } from "@payin/db";

/**
 * Sign-in throttling per (email, client address), per account and per MFA
 * challenge (see domain/throttle.ts):
 * - `verified`: a right password whose second factor is still to come; it is
 *   no failure, and no completed sign-in either;
 * - `challenge_uuid`: the MFA challenge a code attempt was for, so wrong codes
 *   are limited per challenge;
 * - the last completed sign-in of an email is found by a partial index, since
 *   the account's consecutive failures are counted from it.
 */
export class SignInThrottling extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table login_attempts drop constraint login_attempts_outcome_check`);
    this.addSql(`
      alter table login_attempts add constraint login_attempts_outcome_check
        check (outcome in ('pending', 'failed', 'succeeded', 'verified', 'forgiven', 'throttled'))`);
    this.addSql(`alter table login_attempts add column challenge_uuid uuid`);
    this.addSql(`create index login_attempts_challenge_idx on login_attempts (challenge_uuid) where challenge_uuid is not null`);
    this.addSql(`create index login_attempts_succeeded_idx on login_attempts (email, attempt_id) where outcome = 'succeeded'`);
    this.addSql(`create index login_attempts_attempted_at_idx on login_attempts (attempted_at)`);
  }
}
