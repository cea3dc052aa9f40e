import { isNotNullViolation, isUniqueViolation, prepared, sql, type Queryable } from "@payin/db";
import { oncePerCause, type Logger } from "@payin/logging";
import { coalesceByGroup } from "@payin/rpc";
import type { DerivedAddress } from "../domain/hd.js";
import type { AllocateOutcome, Allocation, Rail, Wallet, WalletStore } from "../domain/wallet.js";

/** The unique constraint on allocations.address (see the initial migration). */
const ADDRESS_KEY = "allocations_address_key";
/** The primary key of allocations: one address per intent. */
const INTENT_KEY = "allocations_pkey";

/** A wallets row, as the driver answers it (timestamps as text). */
interface WalletRow {
  merchant_uuid: string;
  xpub: string;
  next_index: number;
  created_at: string;
  updated_at: string;
}

/** The allocation columns ALLOCATE returns (a `select *` of allocations has these and more). */
interface AllocationRow {
  intent_uuid: string;
  merchant_uuid: string;
  address_index: number;
  address: string;
  rail: Rail;
  derivation_path: string;
  created_at: string;
}

function walletFromRow(row: WalletRow): Wallet {
  return {
    merchantUuid: row.merchant_uuid,
    xpub: row.xpub,
    nextIndex: row.next_index,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

function allocationFromRow(row: AllocationRow): Allocation {
  return {
    intentUuid: row.intent_uuid,
    merchantUuid: row.merchant_uuid,
    index: row.address_index,
    address: row.address,
    rail: row.rail,
    derivationPath: row.derivation_path,
    createdAt: new Date(row.created_at),
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
export const ALLOCATE = prepared<AllocationRow>(
  "allocation.allocate",
  `with w as (
           update wallets set next_index = next_index + 1 where merchant_uuid = $1
           returning merchant_uuid, xpub, next_index - 1 as idx)
         insert into allocations (intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at)
         select $2, w.merchant_uuid, w.idx, p.address, $3, p.derivation_path, $4
           from w left join address_pool p
             on p.merchant_uuid = w.merchant_uuid and p.xpub = w.xpub and p.address_index = w.idx
         returning intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at`,
);

/**
 * ALLOCATE for several intents of one merchant: the counter moves by their
 * number in one UPDATE and each takes the pool address at its own index, in the
 * order given. Any failure (a missing pool row, an intent that already has an
 * address) aborts the whole statement, bump included; no wallet inserts nothing.
 */
const ALLOCATE_MANY = prepared<AllocationRow>(
  "allocation.allocate-many",
  `with w as (
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
);

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
export function allocationBatcher(db: Queryable, logger?: Logger): (request: AllocationRequest) => Promise<Allocation | null> {
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
        const rows = await db.query(ALLOCATE_MANY, [merchantUuid, intents, requests.map((r) => r.rail), requests[0]!.now]);
        for (const row of rows) allocated.set(row.intent_uuid, allocationFromRow(row));
      } catch (error) {
        // Each is retried alone, which gives each its own outcome.
        fellBack(error, { rows: requests.length });
      }
      return requests.map((r) => allocated.get(r.intentUuid) ?? null);
    },
    { maxBatch: 1000, inFlight: 1 },
  );
}

/** Sets a merchant's key (see WalletRepository.upsert). */
const UPSERT_WALLET = sql<WalletRow>(`with w as (
         insert into wallets (merchant_uuid, xpub, next_index, created_at, updated_at)
         select $1, $2, 0, $3, $4
         where not exists (select 1 from wallets where xpub = $5 and merchant_uuid <> $6)
         on conflict (merchant_uuid) do update set xpub = excluded.xpub, updated_at = excluded.updated_at
         returning *),
       stale as (delete from address_pool ap using w where ap.merchant_uuid = w.merchant_uuid and ap.xpub <> w.xpub)
       select * from w`);

const FIND_WALLET = sql<WalletRow>(`select * from wallets where merchant_uuid = $1`);

const POOL_HIGH = sql<{ high: number }>(`select coalesce(max(address_index), -1) as high from address_pool where merchant_uuid = $1 and xpub = $2`);

/** Drops the pool rows below the committed counter ($2: consumed by allocations) and adds the derived ones. */
const FILL_POOL = sql(`with consumed as (delete from address_pool where merchant_uuid = $1 and address_index < $2)
       insert into address_pool (merchant_uuid, xpub, address_index, address, derivation_path)
       select $3, $4, t.address_index, t.address, t.derivation_path
         from unnest($5::int[], $6::text[], $7::text[]) as t(address_index, address, derivation_path)
       on conflict do nothing`);

const FIND_ALLOCATION = sql<AllocationRow>(`select * from allocations where intent_uuid = $1`);

/**
 * WalletStore on PostgreSQL: each operation one statement on the service's
 * Database (the allocation itself prepared, as on every pay-in create).
 */
export class WalletRepository implements WalletStore {
  constructor(
    private readonly db: Queryable,
    /** Shared by the process's repositories (allocationBatcher); none: every allocation alone. */
    private readonly allocateTogether?: (request: AllocationRequest) => Promise<Allocation | null>,
  ) {}

  async upsert(merchantUuid: string, xpub: string, now: Date): Promise<Wallet | null> {
    // One statement. The guard against another merchant holding the key is a
    // read, so two merchants registering one key at the same instant could both
    // pass it; the unique address constraint still stops a double hand-out.
    // Replacing the key also drops the addresses pre-derived from the old one.
    const [row] = await this.db.query(UPSERT_WALLET, [merchantUuid, xpub, now, now, xpub, merchantUuid]);
    return row ? walletFromRow(row) : null;
  }

  async find(merchantUuid: string): Promise<Wallet | null> {
    const [row] = await this.db.query(FIND_WALLET, [merchantUuid]);
    return row ? walletFromRow(row) : null;
  }

  async allocate(input: AllocationRequest): Promise<AllocateOutcome> {
    const together = await this.allocateTogether?.(input);
    if (together) return { kind: "allocated", allocation: together };
    try {
      const rows = await this.db.query(ALLOCATE, [input.merchantUuid, input.intentUuid, input.rail, input.now]);
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
    const [row] = await this.db.query(POOL_HIGH, [merchantUuid, xpub]);
    return row?.high ?? -1;
  }

  async fillPool(merchantUuid: string, xpub: string, addresses: DerivedAddress[], consumedBelow: number): Promise<void> {
    await this.db.query(FILL_POOL, [
      merchantUuid,
      consumedBelow,
      merchantUuid,
      xpub,
      addresses.map((a) => a.index),
      addresses.map((a) => a.address),
      addresses.map((a) => a.derivationPath),
    ]);
  }

  private async findAllocation(intentUuid: string): Promise<Allocation | null> {
    const [row] = await this.db.query(FIND_ALLOCATION, [intentUuid]);
    return row ? allocationFromRow(row) : null;
  }
}
