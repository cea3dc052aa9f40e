import { Migration } from "@payin/db";

/**
 * Human identities: argon2id password hashes, roles, sessions (token SHA-256
 * only), MFA challenges (token SHA-256 only), TOTP factors (secret sealed with
 * AES-256-GCM), recovery codes (SHA-256 only) and sign-in attempts for throttling.
 * Emails are stored lower-cased, so the unique constraint is case-insensitive.
 */
export class HumanIdentities extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table identities (
        identity_uuid uuid primary key,
        email varchar(254) not null
          constraint identities_email_key unique
          constraint identities_email_lower check (email = lower(email)),
        password_hash text not null,
        status varchar(16) not null default 'active'
          constraint identities_status_check check (status in ('active', 'disabled', 'locked')),
        created_at timestamptz(3) not null,
        password_changed_at timestamptz(3) not null,
        status_changed_at timestamptz(3)
      )`);
    this.addSql(`create index identities_created_idx on identities (created_at, identity_uuid)`);
    this.addSql(`
      create table identity_roles (
        identity_uuid uuid not null references identities (identity_uuid),
        role varchar(32) not null
          constraint identity_roles_role_check
          check (role in ('platform_admin', 'platform_operator', 'merchant_admin', 'merchant_member')),
        granted_at timestamptz(3) not null,
        primary key (identity_uuid, role)
      )`);
    this.addSql(`create index identity_roles_role_idx on identity_roles (role)`);
    this.addSql(`
      create table sessions (
        session_uuid uuid primary key,
        identity_uuid uuid not null references identities (identity_uuid),
        token_hash bytea not null
          constraint sessions_token_hash_key unique
          constraint sessions_token_hash_length check (octet_length(token_hash) = 32),
        csrf_token varchar(64) not null,
        transport varchar(8) not null constraint sessions_transport_check check (transport in ('cookie', 'bearer')),
        created_at timestamptz(3) not null,
        primary_authenticated_at timestamptz(3) not null,
        mfa_authenticated_at timestamptz(3),
        last_seen_at timestamptz(3) not null,
        absolute_expires_at timestamptz(3) not null,
        revoked_at timestamptz(3)
      )`);
    this.addSql(`create index sessions_identity_live_idx on sessions (identity_uuid) where revoked_at is null`);
    this.addSql(`
      create table mfa_challenges (
        challenge_uuid uuid primary key,
        identity_uuid uuid not null references identities (identity_uuid),
        token_hash bytea not null
          constraint mfa_challenges_token_hash_key unique
          constraint mfa_challenges_token_hash_length check (octet_length(token_hash) = 32),
        transport varchar(8) not null constraint mfa_challenges_transport_check check (transport in ('cookie', 'bearer')),
        created_at timestamptz(3) not null,
        expires_at timestamptz(3) not null,
        consumed_at timestamptz(3)
      )`);
    this.addSql(`
      create table totp_factors (
        identity_uuid uuid primary key references identities (identity_uuid),
        secret_ciphertext bytea not null,
        created_at timestamptz(3) not null,
        confirmed_at timestamptz(3),
        last_used_step bigint
      )`);
    this.addSql(`
      create table recovery_codes (
        identity_uuid uuid not null references identities (identity_uuid),
        code_hash bytea not null constraint recovery_codes_code_hash_length check (octet_length(code_hash) = 32),
        created_at timestamptz(3) not null,
        used_at timestamptz(3),
        primary key (identity_uuid, code_hash)
      )`);
    this.addSql(`
      create table login_attempts (
        attempt_id bigint generated always as identity primary key,
        email varchar(254) not null,
        client_ip varchar(64),
        attempted_at timestamptz(3) not null,
        outcome varchar(16) not null
          constraint login_attempts_outcome_check
          check (outcome in ('pending', 'failed', 'succeeded', 'forgiven', 'throttled'))
      )`);
    this.addSql(`create index login_attempts_email_idx on login_attempts (email, attempted_at)`);
    this.addSql(`create index login_attempts_ip_idx on login_attempts (client_ip, attempted_at) where client_ip is not null`);
  }
}
