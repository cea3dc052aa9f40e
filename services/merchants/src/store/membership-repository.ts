import { sql, type Queryable } from "@payin/db";
import { isMerchantRole, type MerchantRole } from "@payin/permissions";
import type { Membership, MembershipStore } from "../domain/membership.js";

interface MembershipRow {
  merchant_uuid: string;
  identity_uuid: string;
  created_at: string;
  role: string | null;
}

function fromRow(row: MembershipRow): Membership {
  // The column's check allows merchant roles only.
  const role = row.role !== null && isMerchantRole(row.role) ? row.role : null;
  return { merchantUuid: row.merchant_uuid, identityUuid: row.identity_uuid, createdAt: new Date(row.created_at), role };
}

const COLUMNS = "merchant_uuid, identity_uuid, created_at, role";

// The primary key decides between concurrent twins; the loser inserts nothing.
const INSERT_IF_ABSENT = sql<{ merchant_uuid: string }>(`insert into memberships (merchant_uuid, identity_uuid, created_at, role) values ($1, $2, $3, $4)
       on conflict (merchant_uuid, identity_uuid) do nothing
       returning merchant_uuid`);

const FIND = sql<MembershipRow>(`select ${COLUMNS} from memberships where merchant_uuid = $1 and identity_uuid = $2`);

// One statement: of concurrent changes to the same role, one changes it and the others find it done.
const CHANGE_ROLE = sql<MembershipRow>(`update memberships set role = $3
        where merchant_uuid = $1 and identity_uuid = $2 and role is distinct from $3
        returning ${COLUMNS}`);

const DELETE = sql<MembershipRow>(`delete from memberships where merchant_uuid = $1 and identity_uuid = $2 returning ${COLUMNS}`);

const LIST_BY_IDENTITY = sql<MembershipRow>(`select ${COLUMNS} from memberships
        where identity_uuid = $1 order by created_at, merchant_uuid`);

/** MembershipStore on PostgreSQL. */
export class MembershipRepository implements MembershipStore {
  constructor(private readonly db: Queryable) {}

  async insertIfAbsent(membership: Membership): Promise<boolean> {
    const rows = await this.db.query(INSERT_IF_ABSENT, [membership.merchantUuid, membership.identityUuid, membership.createdAt, membership.role]);
    return rows.length === 1;
  }

  async find(merchantUuid: string, identityUuid: string): Promise<Membership | null> {
    const [row] = await this.db.query(FIND, [merchantUuid, identityUuid]);
    return row ? fromRow(row) : null;
  }

  async changeRole(merchantUuid: string, identityUuid: string, role: MerchantRole): Promise<Membership | null> {
    const [row] = await this.db.query(CHANGE_ROLE, [merchantUuid, identityUuid, role]);
    return row ? fromRow(row) : null;
  }

  async delete(merchantUuid: string, identityUuid: string): Promise<Membership | null> {
    const [row] = await this.db.query(DELETE, [merchantUuid, identityUuid]);
    return row ? fromRow(row) : null;
  }

  async listByIdentity(identityUuid: string): Promise<Membership[]> {
    return (await this.db.query(LIST_BY_IDENTITY, [identityUuid])).map(fromRow);
  }
}
