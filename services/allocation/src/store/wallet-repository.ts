import { isUniqueViolation, type EntityManager } from "@payin/db";
import type { DerivedAddress } from "../domain/hd.js";
import type { AllocateOutcome, Allocation, Rail, Wallet, WalletStore } from "../domain/wallet.js";

/** The unique constraint on allocations.address (see the initial migration). */
const ADDRESS_KEY = "allocations_address_key";

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

/** Thrown inside the allocation transaction to roll it back when the intent already has an address. */
class IntentAlreadyAllocated extends Error {}

/** WalletStore on PostgreSQL; one instance per request (a forked EntityManager). */
export class WalletRepository implements WalletStore {
  constructor(private readonly em: EntityManager) {}

  async upsert(merchantUuid: string, xpub: string, now: Date): Promise<Wallet | null> {
    // One statement. The guard against another merchant holding the key is a
    // read, so two merchants registering one key at the same instant could both
    // pass it; the unique address constraint still stops a double hand-out.
    const rows = await this.em.execute(
      `insert into wallets (merchant_uuid, xpub, next_index, created_at, updated_at)
       select ?, ?, 0, ?, ?
       where not exists (select 1 from wallets where xpub = ? and merchant_uuid <> ?)
       on conflict (merchant_uuid) do update set xpub = excluded.xpub, updated_at = excluded.updated_at
       returning *`,
      [merchantUuid, xpub, now, now, xpub, merchantUuid],
    );
    return rows[0] ? walletFromRow(rows[0]) : null;
  }

  async find(merchantUuid: string): Promise<Wallet | null> {
    const rows = await this.em.execute(`select * from wallets where merchant_uuid = ?`, [merchantUuid]);
    return rows[0] ? walletFromRow(rows[0]) : null;
  }

  async allocate(
    input: { merchantUuid: string; intentUuid: string; rail: Rail; now: Date },
    derive: (xpub: string, index: number) => DerivedAddress,
  ): Promise<AllocateOutcome> {
    try {
      // Four round trips on the happy path: begin, bump, insert, commit. The
      // transaction runs on the ORM's own knex (same pool, same search_path):
      // em.transactional adds a unit-of-work flush inside the lock window, which
      // measured 15-25% fewer allocations per second for one merchant.
      return await this.em.getConnection().getKnex().transaction(async (trx) => {
        // The UPDATE takes the wallet's row lock, held until commit: allocations
        // of one merchant queue here, so indexes are handed out in order, once.
        const bumped = await trx.raw(
          `update wallets set next_index = next_index + 1 where merchant_uuid = ?
           returning next_index - 1 as idx, xpub`,
          [input.merchantUuid],
        );
        const wallet = bumped.rows[0] as { idx: number; xpub: string } | undefined;
        if (!wallet) return { kind: "no-wallet" } as const;
        const derived = derive(wallet.xpub, Number(wallet.idx));
        const inserted = await trx.raw(
          `insert into allocations (intent_uuid, merchant_uuid, address_index, address, rail, derivation_path, created_at)
           values (?, ?, ?, ?, ?, ?, ?)
           on conflict (intent_uuid) do nothing
           returning *`,
          [input.intentUuid, input.merchantUuid, derived.index, derived.address, input.rail, derived.derivationPath, input.now],
        );
        const row = inserted.rows[0] as Record<string, unknown> | undefined;
        // Nothing inserted: the intent already has an address (a retry, or a
        // concurrent call that committed first). Roll back so the bump is undone
        // and the counter keeps no gap.
        if (!row) throw new IntentAlreadyAllocated();
        return { kind: "allocated", allocation: allocationFromRow(row) } as const;
      });
    } catch (error) {
      const intentTaken = error instanceof IntentAlreadyAllocated;
      if (!intentTaken && !isUniqueViolation(error, ADDRESS_KEY)) throw error;
      const existing = await this.findAllocation(input.intentUuid);
      if (existing) return { kind: "existing", allocation: existing };
      // An intent conflict means the row exists and is committed: it cannot vanish.
      if (intentTaken) throw new Error("allocation of an intent conflicted but cannot be read");
      return { kind: "address-taken" };
    }
  }

  private async findAllocation(intentUuid: string): Promise<Allocation | null> {
    const rows = await this.em.execute(`select * from allocations where intent_uuid = ?`, [intentUuid]);
    return rows[0] ? allocationFromRow(rows[0]) : null;
  }
}
