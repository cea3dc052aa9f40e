import { Migration } from "@payin/db";

/**
 * Chain trust: a rail's cursor records the highest block it settled (a
 * reorganisation below it is a finality violation) and whether the rail is
 * halted, of which kind, why and since when (a halted rail credits nothing
 * and is provider_not_ready). A settled transfer that a finality violation
 * took off the chain is orphaned and says when (`vanished_at`); each transfer
 * records which endpoint reported it (`reported_by`).
 */
export class ChainTrust extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table observer_cursors
        add column settled_through bigint,
        add column halted_kind varchar(32) check (halted_kind in ('chain_identity', 'disagreement', 'finality_violation', 'configuration')),
        add column halted_reason text,
        add column halted_at timestamptz(3),
        add constraint observer_cursors_halt_whole check ((halted_kind is null) = (halted_reason is null) and (halted_kind is null) = (halted_at is null))`);
    // Which endpoint reported a transfer (a digest of its URL): another one must confirm it before it settles.
    this.addSql(`
      alter table observed_transfers
        add column reported_by varchar(16),
        add column vanished_at timestamptz(3),
        add constraint observed_transfers_vanished_orphaned check (vanished_at is null or state = 'orphaned')`);
  }
}
