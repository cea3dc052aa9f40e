import { Migration } from "@payin/db";

/**
 * Merchants' machine credentials. Only the key id and SHA-256 of the secret are
 * kept. A partial unique index lets the database itself hold "at most one active
 * credential per merchant", whatever the concurrency. Human identities, sessions
 * and MFA factors arrive in later migrations of this schema.
 */
export class MachineCredentials extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table machine_credentials (
        credential_uuid uuid primary key,
        merchant_uuid uuid not null,
        key_id char(32) not null
          constraint machine_credentials_key_id_key unique
          constraint machine_credentials_key_id_format check (key_id ~ '^[0-9a-f]{32}$'),
        secret_hash bytea not null
          constraint machine_credentials_secret_hash_length check (octet_length(secret_hash) = 32),
        status varchar(16) not null default 'active'
          constraint machine_credentials_status_check check (status in ('active', 'revoked')),
        created_at timestamptz(3) not null,
        last_used_at timestamptz(3),
        revoked_at timestamptz(3),
        replaced_by_uuid uuid
          constraint machine_credentials_replaced_by_fk references machine_credentials (credential_uuid)
          deferrable initially deferred,
        constraint machine_credentials_revoked_at_check check ((status = 'revoked') = (revoked_at is not null))
      )`);
    this.addSql(`
      create unique index machine_credentials_one_active_per_merchant
        on machine_credentials (merchant_uuid) where status = 'active'`);
    this.addSql(`create index machine_credentials_merchant_idx on machine_credentials (merchant_uuid, created_at desc)`);
  }
}
