import { Migration } from "@payin/db";

/**
 * The administration records of the merchants service: memberships, versioned
 * rules and policies, operating profiles, the provider registry, provider
 * bindings and connections, and the append-only audit log.
 *
 * Seed: the provider `evm-rpc` (EVM JSON-RPC chain observation) with the FIXED
 * uuid 01a2008d-7400-7000-8000-000000000001 (a UUIDv7 whose time is this
 * migration's date, 2026-11-22T00:00:00Z). Other components and deployment
 * scripts may refer to that uuid; it never changes.
 */
export class MerchantAdministration extends Migration {
  override async up(): Promise<void> {
    // Listing merchants newest first.
    this.addSql(`create index merchants_created_idx on merchants (created_at desc, uuid desc)`);

    this.addSql(`
      create table memberships (
        merchant_uuid uuid not null references merchants (uuid),
        identity_uuid uuid not null,
        created_at timestamptz(3) not null,
        constraint memberships_pkey primary key (merchant_uuid, identity_uuid)
      )`);
    this.addSql(`create index memberships_identity_idx on memberships (identity_uuid, created_at)`);

    // Versioned rules: versions 1..n per (capability, jurisdiction); the partial
    // unique index keeps exactly one open version, the unique key keeps numbers
    // from repeating.
    this.addSql(`
      create table rules (
        rule_uuid uuid primary key,
        capability varchar(64) not null check (capability ~ '^[a-z][a-z0-9_.]{0,63}$'),
        jurisdiction varchar(2) not null check (jurisdiction ~ '^[A-Z]{2}$'),
        effect varchar(8) not null check (effect in ('allow', 'deny')),
        version integer not null check (version > 0),
        valid_from timestamptz(3) not null,
        valid_to timestamptz(3),
        constraint rules_version_key unique (capability, jurisdiction, version),
        constraint rules_valid_range check (valid_to is null or valid_to >= valid_from)
      )`);
    this.addSql(`create unique index rules_one_open_idx on rules (capability, jurisdiction) where valid_to is null`);

    this.addSql(`
      create table operating_profiles (
        merchant_uuid uuid primary key references merchants (uuid),
        operating_mode varchar(32) not null
          check (operating_mode in ('non_custodial', 'platform_custody', 'hybrid')),
        created_at timestamptz(3) not null,
        updated_at timestamptz(3) not null
      )`);

    // Versioned per-merchant policies, kept exactly like rules.
    this.addSql(`
      create table policies (
        policy_uuid uuid primary key,
        merchant_uuid uuid not null references merchants (uuid),
        scope varchar(16) not null check (scope in ('payin', 'payout', 'custody', 'settlement')),
        effect varchar(8) not null check (effect in ('allow', 'deny')),
        version integer not null check (version > 0),
        valid_from timestamptz(3) not null,
        valid_to timestamptz(3),
        constraint policies_version_key unique (merchant_uuid, scope, version),
        constraint policies_valid_range check (valid_to is null or valid_to >= valid_from)
      )`);
    this.addSql(`create unique index policies_one_open_idx on policies (merchant_uuid, scope) where valid_to is null`);

    this.addSql(`
      create table providers (
        provider_uuid uuid primary key,
        name varchar(100) not null,
        created_at timestamptz(3) not null
      )`);
    // Names are unique whatever their letter case ("evm-rpc" and "EVM-RPC" are one provider).
    this.addSql(`create unique index providers_name_key on providers (lower(name))`);
    this.addSql(`
      insert into providers (provider_uuid, name, created_at)
      values ('01a2008d-7400-7000-8000-000000000001', 'evm-rpc', '2026-11-22T00:00:00Z')`);

    this.addSql(`
      create table provider_bindings (
        binding_uuid uuid primary key,
        merchant_uuid uuid not null references merchants (uuid),
        provider_uuid uuid not null references providers (provider_uuid),
        capability varchar(64) not null check (capability ~ '^[a-z][a-z0-9_.]{0,63}$'),
        jurisdiction varchar(2) not null check (jurisdiction ~ '^[A-Z]{2}$'),
        created_at timestamptz(3) not null,
        constraint provider_bindings_key unique (merchant_uuid, provider_uuid, capability, jurisdiction)
      )`);

    // Only a secret *reference* is stored; its format is checked by the service
    // (no CHECK here, so no constraint error ever quotes the value).
    this.addSql(`
      create table provider_connections (
        connection_uuid uuid primary key,
        merchant_uuid uuid not null references merchants (uuid),
        provider_uuid uuid not null references providers (provider_uuid),
        secret_reference varchar(255),
        created_at timestamptz(3) not null,
        updated_at timestamptz(3) not null,
        constraint provider_connections_key unique (merchant_uuid, provider_uuid)
      )`);

    this.addSql(`
      create table audit_events (
        event_uuid uuid primary key,
        actor_kind varchar(32) not null
          check (actor_kind in ('identity', 'machine_credential', 'operator_cli', 'system')),
        actor_uuid uuid,
        request_id varchar(128),
        action varchar(64) not null,
        target_type varchar(32) not null,
        target_uuid uuid,
        outcome varchar(16) not null check (outcome in ('succeeded', 'failed')),
        error_code varchar(64),
        occurred_at timestamptz(3) not null,
        constraint audit_events_error_code check ((outcome = 'failed') = (error_code is not null))
      )`);
    this.addSql(`create index audit_events_recent_idx on audit_events (occurred_at desc, event_uuid desc)`);
    // The log is append-only: rows are never changed or removed by the service.
    this.addSql(`
      create function audit_events_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'audit_events is append-only';
      end $$`);
    this.addSql(`
      create trigger audit_events_append_only before update or delete on audit_events
      for each row execute function audit_events_append_only()`);
    this.addSql(`
      create trigger audit_events_no_truncate before truncate on audit_events
      for each statement execute function audit_events_append_only()`);
  }
}
