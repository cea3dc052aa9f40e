import type { EntityManager } from "@payin/db";
import type { Merchant, MerchantFilter, MerchantStatus, MerchantStore } from "../domain/merchant.js";
import { date, textOrNull, type Row } from "./rows.js";

const COLUMNS = `uuid, display_name, legal_name, status, created_at, updated_at`;

function fromRow(row: Row): Merchant {
  return {
    uuid: row.uuid as string,
    displayName: row.display_name as string,
    legalName: textOrNull(row.legal_name),
    status: row.status as MerchantStatus,
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  };
}

/** MerchantStore on PostgreSQL; one instance per request (a forked EntityManager). */
export class MerchantRepository implements MerchantStore {
  constructor(private readonly em: EntityManager) {}

  async insert(merchant: Merchant): Promise<void> {
    const { uuid, displayName, legalName, status, createdAt, updatedAt } = merchant;
    await this.em.execute(`insert into merchants (${COLUMNS}) values (?, ?, ?, ?, ?, ?)`, [uuid, displayName, legalName, status, createdAt, updatedAt]);
  }

  async find(uuid: string): Promise<Merchant | null> {
    const rows = await this.em.execute(`select ${COLUMNS} from merchants where uuid = ?`, [uuid]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async lockForChange(uuid: string): Promise<Merchant | null> {
    // FOR SHARE conflicts with the UPDATE of a transition, so a merchant cannot
    // be closed while a dependent record is being written (nor the reverse);
    // dependent writers do not block each other.
    const rows = await this.em.execute(`select ${COLUMNS} from merchants where uuid = ? for share`, [uuid]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async transition(uuid: string, from: readonly MerchantStatus[], to: MerchantStatus, at: Date): Promise<Merchant | null> {
    // One statement: the row lock taken by UPDATE makes concurrent transitions
    // serialise, and the status test is re-checked on the locked row.
    const rows = await this.em.execute(
      `update merchants set status = ?, updated_at = ? where uuid = ? and status = any(?::text[]) returning ${COLUMNS}`,
      [to, at, uuid, `{${from.join(",")}}`],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async list(filter: MerchantFilter): Promise<{ merchants: Merchant[]; total: number }> {
    // Exact filters on indexed columns only: uuid (primary key), status, display_name.
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.status !== undefined) {
      where.push("status = ?");
      params.push(filter.status);
    }
    if (filter.uuid !== undefined) {
      where.push("uuid = ?");
      params.push(filter.uuid);
    }
    if (filter.displayName !== undefined) {
      where.push("display_name = ?");
      params.push(filter.displayName);
    }
    const condition = where.length > 0 ? `where ${where.join(" and ")}` : "";
    // Page and exact total in one round trip; merchants are few.
    const rows = await this.em.execute(
      `select (select count(*) from merchants ${condition}) as total, page.*
         from (select 1) one
         left join lateral (
           select ${COLUMNS} from merchants ${condition}
            order by created_at desc, uuid desc limit ? offset ?
         ) page on true`,
      [...params, ...params, filter.limit, filter.offset],
    );
    return {
      merchants: rows.filter((row: Row) => row.uuid !== null).map(fromRow),
      total: Number(rows[0]?.total ?? 0),
    };
  }
}
