import { isNotNullViolation, isUniqueViolation, type EntityManager, type PreparedStatement, type SqlClient } from "@payin/db";
import { coalesceByGroup } from "@payin/rpc";
import type { DerivedAddress } from "../domain/hd.js";
import type { AllocateOutcome, Allocation, Rail, Wallet, WalletStore } from "../domain/wallet.js";

/** The unique constraint on allocations.address (see the initial migration). */
const ADDRESS_KEY = "allocations_address_key";
/** The primary key of allocations: one address per intent. */
const INTENT_KEY = "allocations_pkey";

function walletFromRow(row: Record<string, unknown>): Wallet {
  return {
    merchantUuid: row.merchant_uuid as string,
    xpub: row.xpub as string,
    nextIndex: Number(row.next_index),
    released: Number(row.released ?? 0),
    createdAt: new Date(row.created_at as string | Date),
    updatedAt: new Date(row.updated_at as string | Date),
  };
}

function allocationFromRow(row: Record<string, unknown>): Allocation {
  return {
    intentUuid: row.intent_uuid as string,
    merchantUuid: row.merchant_uuid as string,
    index: Number(row.address_index),
    address: row.address as string,
    rail: row.rail as Rail,
    derivationPath: row.derivation_path as string,
    createdAt: new Date(row.created_at as string | Date),
  };
}

/**
 * Allocates addresses to several intents of one merchant (`$2`, in order) in
 * one statement, so the wallet's row lock (taken by the UPDATE) is held only
 * while it runs and commits. Released addresses of the wallet's current key
 * come first, lowest index first; the rest take the next indexes of the counter,
 * which moves by their number, each with the pre-derived address at its index.
 * When the pool has no row at such an index, the NOT NULL on address aborts the
 * statement, bump and reuse included; so does an intent that already has an
 * address. No wallet: nothing happens and nothing is returned.
 *
 * The pool is read in the INSERT, not in the UPDATE's WHERE (a WHERE re-checked
 * after waiting for the lock would not see it), by correlated subqueries, so
 * that each index is one probe of the pool's key: as a join, the generic plan
 * (which guesses a thousand rows of generate_series) hashed the whole pool, a
 * spill to disk while the wallet's row lock was held. Released rows are deleted before the wallet row is locked, in
 * every statement, so two statements cannot deadlock on them; a row another
 * statement took first is simply not counted, and the counter covers the
 * difference. A released row of a key replaced meanwhile is dropped and its
 * intent left unallocated, for the caller to try again. Prepared, with named
 * columns: a prepared `returning *` breaks ("cached plan must not change result
 * type") when a migration adds a column under a running process.
 */
const ALLOCATE_MANY: PreparedStatement = {
  name: "allocation.allocate-many",
  text: `with rel as (
           delete from released_addresses ra
            using (select address_index from released_addresses
                    where merchant_uuid = $1 and xpub = (select xpub from wallets where merchant_uuid = $1)
                    order by address_index limit cardinality($2::uuid[])) pick
            where ra.merchant_uuid = $1 and ra.address_index = pick.address_index
           returning ra.address_index, ra.address, ra.derivation_path, ra.xpub),
         fresh as (select cardinality($2::uuid[]) - (select count(*) from rel)::int as n),
         w as (
           update wallets set next_index = next_index + (select n from fresh) where merchant_uuid = $1
           returning merchant_uuid, xpub, next_index - (select n from fresh) as first_idx),
         slots as (
           select (row_number() over (order by address_index) - 1)::int as n, address_index as idx, address, derivation_path, xpub
             from rel
           union all
           select (select count(*) from rel)::int + g, w.first_idx + g,
                  (select p.address from address_pool p
                    where p.merchant_uuid = w.merchant_uuid and p.xpub = w.xpub and p.address_index = w.first_idx + g),
                  (select p.derivation_path from address_pool p
                    where p.merchant_uuid = w.merchant_uuid and p.xpub = w.xpub and p.address_index = w.first_idx + g),
                  w.xpub
             from w cross join generate_series(0, (select n from fresh) - 1) g),
         r as (
           select t.intent_uuid, t.rail, (t.ord - 1)::int as n
             from unnest($2::uuid[], $3::text[]) with ordinality as t(intent_uuid, rail, ord))
         insert into allocations (intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at, xpub)
         select r.intent_uuid, w.merchant_uuid, s.idx, s.address, r.rail, s.derivation_path, $4, s.xpub
           from r join slots s on s.n = r.n join w on w.xpub = s.xpub
         returning intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at`,
};

/**
 * Gives back the addresses of intents that were never stored: deletes their
 * allocations (only those of the merchant named, with their key recorded) and
 * keeps each address as released, for the merchant's next allocations.
 */
const RELEASE_MANY: PreparedStatement = {
  name: "allocation.release-many",
  text: `with d as (
           delete from allocations a
            using unnest($1::uuid[], $2::uuid[]) as t(merchant_uuid, intent_uuid)
            where a.intent_uuid = t.intent_uuid and a.merchant_uuid = t.merchant_uuid and a.xpub is not null
           returning a.intent_uuid, a.merchant_uuid, a.address_index, a.address, a.derivation_path, a.xpub),
         kept as (
           insert into released_addresses (merchant_uuid, address_index, xpub, address, derivation_path, released_at)
           select merchant_uuid, address_index, xpub, address, derivation_path, $3 from d)
         select intent_uuid from d`,
};

export interface AllocationRequest {
  merchantUuid: string;
  intentUuid: string;
  rail: Rail;
  now: Date;
}

/**
 * Allocates together what is asked for of one merchant: one ALLOCATE_MANY
 * statement, one commit and one wait on the wallet's row lock for all of them,
 * instead of one each. At most one such statement per merchant runs at a time;
 * the allocations asked for meanwhile go together in the next, so under load the
 * batches grow instead of queueing on the row lock (each statement locks one
 * wallet row, so batches cannot deadlock). Answers null for a request it did not
 * allocate — its batch failed, repeated an intent, or its merchant has no
 * wallet — which the caller then allocates on its own, getting the exact outcome.
 */
export function allocationBatcher(sql: SqlClient): (request: AllocationRequest) => Promise<Allocation | null> {
  return coalesceByGroup(
    (request: AllocationRequest) => request.merchantUuid,
    async (merchantUuid, requests: AllocationRequest[]) => {
      const intents = requests.map((r) => r.intentUuid);
      // A repeated intent would abort the batch: let each go alone.
      if (new Set(intents).size !== intents.length) return requests.map(() => null);
      const allocated = new Map<string, Allocation>();
      try {
        const rows = await sql.query(ALLOCATE_MANY, [merchantUuid, intents, requests.map((r) => r.rail), requests[0]!.now]);
        for (const row of rows) allocated.set(row.intent_uuid as string, allocationFromRow(row));
      } catch {
        // Each is retried alone, which gives each its own outcome.
      }
      return requests.map((r) => allocated.get(r.intentUuid) ?? null);
    },
    { maxBatch: 1000, inFlight: 1 },
  );
}

/**
 * WalletStore on PostgreSQL, one per request: the SqlClient (the ORM's pool) runs
 * the allocation itself; an EntityManager is forked only when another operation
 * needs one, so the create path forks none.
 */
export class WalletRepository implements WalletStore {
  private forked: EntityManager | undefined;

  constructor(
    private readonly fork: () => EntityManager,
    private readonly sql: SqlClient,
    /** Shared by the process's repositories (allocationBatcher); none: every allocation alone. */
    private readonly allocateTogether?: (request: AllocationRequest) => Promise<Allocation | null>,
  ) {}

  private get em(): EntityManager {
    return (this.forked ??= this.fork());
  }

  async upsert(merchantUuid: string, xpub: string, now: Date): Promise<Wallet | null> {
    // One statement. The guard against another merchant holding the key is a
    // read, so two merchants registering one key at the same instant could both
    // pass it; the unique address constraint still stops a double hand-out.
    // Replacing the key also drops the addresses pre-derived from the old one.
    // Released addresses of the old key are left alone (allocations pass them
    // over, and take them again if the wallet gets that key back): deleting them
    // here, under the wallet's row lock, could deadlock with an allocation that
    // took one of them and waits for that lock.
    const rows = await this.em.execute(
      `with w as (
         insert into wallets (merchant_uuid, xpub, next_index, created_at, updated_at)
         select ?, ?, 0, ?, ?
         where not exists (select 1 from wallets where xpub = ? and merchant_uuid <> ?)
         on conflict (merchant_uuid) do update set xpub = excluded.xpub, updated_at = excluded.updated_at
         returning *),
       stale as (delete from address_pool ap using w where ap.merchant_uuid = w.merchant_uuid and ap.xpub <> w.xpub)
       select w.*, (select count(*) from released_addresses ra where ra.merchant_uuid = w.merchant_uuid and ra.xpub = w.xpub) as released
         from w`,
      [merchantUuid, xpub, now, now, xpub, merchantUuid],
    );
    return rows[0] ? walletFromRow(rows[0]) : null;
  }

  async find(merchantUuid: string): Promise<Wallet | null> {
    const rows = await this.em.execute(
      `select w.*, (select count(*) from released_addresses ra where ra.merchant_uuid = w.merchant_uuid and ra.xpub = w.xpub) as released
         from wallets w where w.merchant_uuid = ?`,
      [merchantUuid],
    );
    return rows[0] ? walletFromRow(rows[0]) : null;
  }

  async allocate(input: AllocationRequest): Promise<AllocateOutcome> {
    const together = await this.allocateTogether?.(input);
    if (together) return { kind: "allocated", allocation: together };
    try {
      const rows = await this.sql.query(ALLOCATE_MANY, [input.merchantUuid, [input.intentUuid], [input.rail], input.now]);
      if (rows[0]) return { kind: "allocated", allocation: allocationFromRow(rows[0]) };
    } catch (error) {
      if (isUniqueViolation(error, INTENT_KEY)) {
        const existing = await this.findAllocation(input.intentUuid);
        if (existing) return { kind: "existing", allocation: existing };
      }
      if (isUniqueViolation(error, ADDRESS_KEY)) return { kind: "address-taken" };
      if (!isNotNullViolation(error)) throw error;
      // No pre-derived address at the counter's index: rolled back, fill and retry.
      const wallet = await this.find(input.merchantUuid);
      if (wallet) return { kind: "pool-empty", xpub: wallet.xpub, nextIndex: wallet.nextIndex };
      throw error;
    }
    // Nothing allocated: the merchant has no wallet, or (rarely) the released
    // address the statement took belonged to a key replaced meanwhile: try again.
    const wallet = await this.find(input.merchantUuid);
    return wallet ? { kind: "pool-empty", xpub: wallet.xpub, nextIndex: wallet.nextIndex } : { kind: "no-wallet" };
  }

  async release(requests: readonly { merchantUuid: string; intentUuid: string }[], now: Date): Promise<Set<string>> {
    const rows = await this.sql.query(RELEASE_MANY, [requests.map((r) => r.merchantUuid), requests.map((r) => r.intentUuid), now]);
    return new Set(rows.map((row) => row.intent_uuid as string));
  }

  async poolHigh(merchantUuid: string, xpub: string): Promise<number> {
    const rows = await this.em.execute(
      `select coalesce(max(address_index), -1) as high from address_pool where merchant_uuid = ? and xpub = ?`,
      [merchantUuid, xpub],
    );
    return Number(rows[0]?.high ?? -1);
  }

  async fillPool(merchantUuid: string, xpub: string, addresses: DerivedAddress[], consumedBelow: number): Promise<void> {
    // Rows below the committed counter were consumed by allocations: drop them.
    await this.em.execute(
      `with consumed as (delete from address_pool where merchant_uuid = ? and address_index < ?)
       insert into address_pool (merchant_uuid, xpub, address_index, address, derivation_path)
       select ?, ?, t.address_index, t.address, t.derivation_path
         from unnest(?::int[], ?::text[], ?::text[]) as t(address_index, address, derivation_path)
       on conflict do nothing`,
      [
        merchantUuid,
        consumedBelow,
        merchantUuid,
        xpub,
        `{${addresses.map((a) => a.index).join(",")}}`,
        `{${addresses.map((a) => a.address).join(",")}}`,
        `{${addresses.map((a) => `"${a.derivationPath}"`).join(",")}}`,
      ],
    );
  }

  private async findAllocation(intentUuid: string): Promise<Allocation | null> {
    const rows = await this.em.execute(`select * from allocations where intent_uuid = ?`, [intentUuid]);
    return rows[0] ? allocationFromRow(rows[0]) : null;
  }
}
