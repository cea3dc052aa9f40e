import { Migration } from "@payin/db";

/**
 * Events, webhook endpoints, deliveries and their attempts, and the audit
 * outbox. The delivery queue itself (graphile-worker's jobs) lives in its own
 * schema, installed by graphile-worker's migrations; a job names a delivery.
 */
export class InitialNotifications extends Migration {
  override async up(): Promise<void> {
    // An event as born in the service whose state changed. `data` is the JSON
    // text delivered under `data`, kept as text so every delivery sends the same bytes.
    this.addSql(`
      create table events (
        event_uuid uuid primary key,
        merchant_uuid uuid not null,
        type text not null,
        sequence bigint not null constraint events_sequence check (sequence >= 1),
        intent_uuid uuid,
        checkout_uuid uuid,
        created_at timestamptz not null,
        recorded_at timestamptz not null,
        data text not null,
        -- A test event goes to one endpoint and is not listed among the merchant's events.
        test boolean not null default false
      )`);
    this.addSql(`create index events_merchant_order_idx on events (merchant_uuid, event_uuid) where not test`);
    this.addSql(`create index events_merchant_intent_idx on events (merchant_uuid, intent_uuid, event_uuid) where intent_uuid is not null and not test`);
    this.addSql(`create index events_created_idx on events (created_at)`);

    // Secrets are sealed like identity's TOTP secrets (AES-256-GCM under WEBHOOK_SECRET_KEY).
    this.addSql(`
      create table webhook_endpoints (
        endpoint_uuid uuid primary key,
        merchant_uuid uuid not null,
        url text not null,
        description text not null default '',
        event_types text[] not null default '{}',
        enabled boolean not null default true,
        disabled_reason text constraint webhook_endpoints_disabled_reason check (disabled_reason in ('gone', 'failing')),
        disabled_at timestamptz,
        failing_since timestamptz,
        secret_sealed bytea not null,
        previous_secret_sealed bytea,
        previous_secret_expires_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        constraint webhook_endpoints_reason_when_disabled check (disabled_reason is null or not enabled)
      )`);
    this.addSql(`create index webhook_endpoints_merchant_idx on webhook_endpoints (merchant_uuid, created_at, endpoint_uuid)`);

    // One delivery per event and endpoint: recording an event twice, or resending
    // it, never makes a second one (a resend sets it pending again).
    this.addSql(`
      create table deliveries (
        delivery_uuid uuid primary key,
        event_uuid uuid not null references events (event_uuid) on delete cascade,
        endpoint_uuid uuid not null references webhook_endpoints (endpoint_uuid) on delete cascade,
        merchant_uuid uuid not null,
        event_type text not null,
        status text not null constraint deliveries_status check (status in ('pending', 'succeeded', 'failed')),
        attempt_count integer not null default 0,
        -- Attempts of the current round (a resend starts a new round from the schedule's start).
        round_attempts integer not null default 0,
        next_attempt_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        constraint deliveries_event_endpoint unique (event_uuid, endpoint_uuid)
      )`);
    this.addSql(`create index deliveries_endpoint_idx on deliveries (endpoint_uuid, created_at desc, delivery_uuid desc)`);
    this.addSql(`create index deliveries_pending_idx on deliveries (next_attempt_at) where status = 'pending'`);

    this.addSql(`
      create table delivery_attempts (
        attempt_uuid uuid primary key,
        delivery_uuid uuid not null references deliveries (delivery_uuid) on delete cascade,
        attempted_at timestamptz not null,
        status_code integer not null default 0,
        duration_ms integer not null,
        response_excerpt text not null default '',
        error text not null default ''
      )`);
    this.addSql(`create index delivery_attempts_delivery_idx on delivery_attempts (delivery_uuid, attempted_at)`);

    // The audit outbox (@payin/db audit-outbox.ts): endpoint changes, relayed to merchants' audit log.
    this.addSql(`
      create table audit_outbox (
        event_uuid uuid primary key,
        actor_kind text not null constraint audit_outbox_actor_kind check (actor_kind in ('identity', 'operator_cli', 'system')),
        actor_uuid uuid,
        actor_os_user text,
        request_id text,
        action text not null,
        target_type text not null,
        target_uuid uuid,
        outcome text not null default 'succeeded' constraint audit_outbox_outcome check (outcome = 'succeeded'),
        error_code text,
        occurred_at timestamptz not null,
        constraint audit_outbox_actor_uuid check ((actor_kind = 'identity') = (actor_uuid is not null))
      )`);
    this.addSql(`create index audit_outbox_oldest_idx on audit_outbox (occurred_at, event_uuid)`);

    // The notifier processes alive: each one's queue worker (graphile-worker pool) id and
    // when it last said so. A notifier whose beat is stale has died: the sweeper of another
    // hands its locked jobs back (graphile_worker.force_unlock_workers) and deletes its row.
    this.addSql(`
      create table notifier_heartbeats (
        worker_id text primary key,
        started_at timestamptz not null,
        beat_at timestamptz not null
      )`);
  }
}
