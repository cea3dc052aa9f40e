import { sql, type Queryable } from "@payin/db";
import type { Membership, MembershipStore } from "../domain/membership.js";

interface MembershipRow {
  merchant_uuid: string;
  identity_uuid: string;
  created_at: string;
}

function fromRow(row: MembershipRow): Membership {
  return { merchantUuid: row.merchant_uuid, identityUuid: row.identity_uuid, createdAt: new Date(row.created_at) };
}

// The primary key decides between concurrent twins; the loser inserts nothing.
const INSERT_IF_ABSENT = sql<{ merchant_uuid: string }>(`insert into memberships (merchant_uuid, identity_uuid, created_at) values ($1, $2, $3)
       on conflict (merchant_uuid, identity_uuid) do nothing
       returning merchant_uuid`);

const FIND = sql<MembershipRow>(`select merchant_uuid, identity_uuid, created_at from memberships where merchant_uuid = $1 and identity_uuid = $2`);

const LIST_BY_IDENTITY = sql<MembershipRow>(`select merchant_uuid, identity_uuid, created_at from memberships
        where identity_uuid = $1 order by created_at, merchant_uuid`);

/** MembershipStore on PostgreSQL. */
export class MembershipRepository implements MembershipStore {
  constructor(private readonly db: Queryable) {}

  async insertIfAbsent(membership: Membership): Promise<boolean> {
    const rows = await this.db.query(INSERT_IF_ABSENT, [membership.merchantUuid, membership.identityUuid, membership.createdAt]);
    return rows.length === 1;
  }

  async find(merchantUuid: string, identityUuid: string): Promise<Membership | null> {
    const [row] = await this.db.query(FIND, [merchantUuid, identityUuid]);
    return row ? fromRow(row) : null;
  }

  async listByIdentity(identityUuid: string): Promise<Membership[]> {
    return (await this.db.query(LIST_BY_IDENTITY, [identityUuid])).map(fromRow);
  }
}
