import type { EntityManager } from "@payin/db";
import type { Merchant, MerchantStatus, MerchantStore } from "../domain/merchant.js";
import { MerchantEntity, type MerchantRow } from "./entities.js";

function fromRow(row: Record<string, unknown>): Merchant {
  return {
    uuid: row.uuid as string,
    displayName: row.display_name as string,
    legalName: (row.legal_name as string | null) ?? null,
    status: row.status as MerchantStatus,
    createdAt: new Date(row.created_at as string | Date),
    updatedAt: new Date(row.updated_at as string | Date),
  };
}

/** MerchantStore on PostgreSQL; one instance per request (a forked EntityManager). */
export class MerchantRepository implements MerchantStore {
  constructor(private readonly em: EntityManager) {}

  async insert(merchant: Merchant): Promise<void> {
    const row: MerchantRow = { ...merchant };
    await this.em.insert(MerchantEntity, row);
  }

  async find(uuid: string): Promise<Merchant | null> {
    const rows = await this.em.execute(`select * from merchants where uuid = ?`, [uuid]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async transition(uuid: string, from: readonly MerchantStatus[], to: MerchantStatus, at: Date): Promise<Merchant | null> {
    // One statement: the row lock taken by UPDATE makes concurrent transitions
    // serialise, and the status test is re-checked on the locked row.
    const rows = await this.em.execute(
      `update merchants set status = ?, updated_at = ? where uuid = ? and status = any(?::text[]) returning *`,
      [to, at, uuid, `{${from.join(",")}}`],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }
}
