import { found, sql, type Nullable, type Queryable } from "@payin/db";
import type { Merchant, MerchantFilter, MerchantStatus, MerchantStore } from "../domain/merchant.js";

const COLUMNS = `uuid, display_name, legal_name, status, created_at, updated_at`;

/** A row of COLUMNS, as the driver answers it (timestamps as text). */
interface MerchantRow {
  uuid: string;
  display_name: string;
  legal_name: string | null;
  status: MerchantStatus;
  created_at: string;
  updated_at: string;
}

function fromRow(row: MerchantRow): Merchant {
  return {
    uuid: row.uuid,
    displayName: row.display_name,
    legalName: row.legal_name,
    status: row.status,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

const INSERT = sql(`insert into merchants (${COLUMNS}) values ($1, $2, $3, $4, $5, $6)`);
const FIND = sql<MerchantRow>(`select ${COLUMNS} from merchants where uuid = $1`);
const LOCK_FOR_CHANGE = sql<MerchantRow>(`select ${COLUMNS} from merchants where uuid = $1 for share`);
const TRANSITION = sql<MerchantRow>(`update merchants set status = $1, updated_at = $2 where uuid = $3 and status = any($4::text[]) returning ${COLUMNS}`);

/** MerchantStore on PostgreSQL. */
export class MerchantRepository implements MerchantStore {
  constructor(private readonly db: Queryable) {}

  async insert(merchant: Merchant): Promise<void> {
    const { uuid, displayName, legalName, status, createdAt, updatedAt } = merchant;
    await this.db.query(INSERT, [uuid, displayName, legalName, status, createdAt, updatedAt]);
  }

  async find(uuid: string): Promise<Merchant | null> {
    const [row] = await this.db.query(FIND, [uuid]);
    return row ? fromRow(row) : null;
  }

  async lockForChange(uuid: string): Promise<Merchant | null> {
    // FOR SHARE conflicts with the UPDATE of a transition, so a merchant cannot
    // be closed while a dependent record is being written (nor the reverse);
    // dependent writers do not block each other.
    const [row] = await this.db.query(LOCK_FOR_CHANGE, [uuid]);
    return row ? fromRow(row) : null;
  }

  async transition(uuid: string, from: readonly MerchantStatus[], to: MerchantStatus, at: Date): Promise<Merchant | null> {
    // One statement: the row lock taken by UPDATE makes concurrent transitions
    // serialise, and the status test is re-checked on the locked row.
    const [row] = await this.db.query(TRANSITION, [to, at, uuid, from]);
    return row ? fromRow(row) : null;
  }

  async list(filter: MerchantFilter): Promise<{ merchants: Merchant[]; total: number }> {
    // Exact filters on indexed columns only: uuid (primary key), status, display_name.
    const where: string[] = [];
    const values: unknown[] = [];
    const equal = (column: string, value: unknown) => {
      values.push(value);
      where.push(`${column} = $${values.length}`);
    };
    if (filter.status !== undefined) equal("status", filter.status);
    if (filter.uuid !== undefined) equal("uuid", filter.uuid);
    if (filter.displayName !== undefined) equal("display_name", filter.displayName);
    const condition = where.length > 0 ? `where ${where.join(" and ")}` : "";
    const n = values.length;
    // Page and exact total in one round trip; merchants are few.
    const rows = await this.db.query(
      sql<Nullable<MerchantRow> & { total: string }>(`select (select count(*) from merchants ${condition}) as total, page.*
         from (select 1) one
         left join lateral (
           select ${COLUMNS} from merchants ${condition}
            order by created_at desc, uuid desc limit $${n + 1} offset $${n + 2}
         ) page on true`),
      [...values, filter.limit, filter.offset],
    );
    return {
      merchants: rows.filter(found<MerchantRow>("uuid")).map(fromRow),
      total: Number(rows[0]?.total ?? 0),
    };
  }
}
