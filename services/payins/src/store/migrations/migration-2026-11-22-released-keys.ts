import { Migration } from "@payin/db";

/**
 * A failed create no longer deletes its key: it leaves it `released`, with its
 * intent uuid, so that a retry with the same payload creates the intent under
 * that uuid and the allocator answers the address it may already have handed
 * out for it, instead of a new one that would leave a gap in the indexes.
 */
export class ReleasedKeys extends Migration {
  override async up(): Promise<void> {
    // One scan of the keys under the table's lock (migrations run together in one
    // transaction at boot, so a NOT VALID / VALIDATE split would hold it as long).
    this.addSql(`
      alter table idempotency_keys
        drop constraint idempotency_keys_state_check,
        add constraint idempotency_keys_state_check check (state in ('pending', 'completed', 'released'))`);
  }
}
