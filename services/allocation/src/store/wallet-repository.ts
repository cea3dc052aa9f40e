import { isNotNullViolation, isUniqueViolation, type EntityManager, type PreparedStatement, type SqlClient } from "@payin/db";
import { oncePerCause, type Logger } from "@payin/logging";
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
 * Takes the next index and its pre-derived address in one statement, so the
 * wallet's row lock (taken by the UPDATE) is held only while it runs and
 * commits: allocations of one merchant queue on it for well under a millisecond
 * each. The address comes from the pool row at the new index; when there is
 * none, the NOT NULL on address aborts the statement, bump included. A
 * conflicting intent aborts it the same way, so indexes keep no gap. (The pool is
 * read in the INSERT, not in the UPDATE's WHERE: a WHERE re-checked after waiting
 * for the lock would not see it.) On every pay-in create, so prepared; its
 * columns are named, as a prepared `returning *` breaks ("cached plan must not
 * change result type") when a migration adds a column under a running process.
 * Also run as is by tools/bench (B1).
 */
export const ALLOCATE: PreparedStatement = {
  name: "allocation.allocate",
  text: `with w as (
           update wallets set next_index = next_index + 1 where merchant_uuid = $1
           returning merchant_uuid, xpub, next_index - 1 as idx)
         insert into allocations (intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at)
         select $2, w.merchant_uuid, w.idx, p.address, $3, p.derivation_path, $4
           from w left join address_pool p
             on p.merchant_uuid = w.merchant_uuid and p.xpub = w.xpub and p.address_index = w.idx
         returning intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at`,
};

/**
 * ALLOCATE for several intents of one merchant: the counter moves by their
 * number in one UPDATE and each takes the pool address at its own index, in the
 * order given. Any failure (a missing pool row, an intent that already has an
 * address) aborts the whole statement, bump included; no wallet inserts nothing.
 */
const ALLOCATE_MANY: PreparedStatement = {
  name: "allocation.allocate-many",
  text: `with w as (
           update wallets set next_index = next_index + cardinality($2::uuid[]) where merchant_uuid = $1
           returning merchant_uuid, xpub, next_index - cardinality($2::uuid[]) as first_idx),
         r as (
           select t.intent_uuid, t.rail, (t.ord - 1)::int as n
             from unnest($2::uuid[], $3::text[]) with ordinality as t(intent_uuid, rail, ord))
         insert into allocations (intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at)
         select r.intent_uuid, w.merchant_uuid, w.first_idx + r.n, p.address, r.rail, p.derivation_path, $4
           from w cross join r left join address_pool p
             on p.merchant_uuid = w.merchant_uuid and p.xpub = w.xpub and p.address_index = w.first_idx + r.n
         returning intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at`,
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
 * A failed batch is logged with its cause, once per cause and minute: at info
 * when it is part of the work (the pool ran out, an intent already has its
 * address), at warn otherwise, so a broken batch path does not go unseen.
 */
export function allocationBatcher(sql: SqlClient, logger?: Logger): (request: AllocationRequest) => Promise<Allocation | null> {
  const fellBack = logger
    ? oncePerCause(logger, "a batched allocation failed; its addresses are allocated one statement each", {
        // NOT NULL: no pre-derived address at an index (the pool is topped up alone); unique: a retried intent.
        expected: (cause) => cause.code === "23502" || cause.code === "23505",
      })
    : () => {};
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
      } catch (error) {
        // Each is retried alone, which gives each its own outcome.
        fellBack(error, { rows: requests.length });
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
    const rows = await this.em.execute(
      `with w as (
         insert into wallets (merchant_uuid, xpub, next_index, created_at, updated_at)
         select ?, ?, 0, ?, ?
         where not exists (select 1 from wallets where xpub = ? and merchant_uuid <> ?)
         on conflict (merchant_uuid) do update set xpub = excluded.xpub, updated_at = excluded.updated_at
         returning *),
       stale as (delete from address_pool ap using w where ap.merchant_uuid = w.merchant_uuid and ap.xpub <> w.xpub)
       select * from w`,
      [merchantUuid, xpub, now, now, xpub, merchantUuid],
    );
    return rows[0] ? walletFromRow(rows[0]) : null;
  }

  async find(merchantUuid: string): Promise<Wallet | null> {
    const rows = await this.em.execute(`select * from wallets where merchant_uuid = ?`, [merchantUuid]);
    return rows[0] ? walletFromRow(rows[0]) : null;
  }

  async allocate(input: AllocationRequest): Promise<AllocateOutcome> {
    const together = await this.allocateTogether?.(input);
    if (together) return { kind: "allocated", allocation: together };
    try {
      const rows = await this.sql.query(ALLOCATE, [input.merchantUuid, input.intentUuid, input.rail, input.now]);
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
    // Nothing allocated: the merchant has no wallet.
    return { kind: "no-wallet" };
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
