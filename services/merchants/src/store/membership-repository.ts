import type { EntityManager } from "@payin/db";
import type { Membership, MembershipStore } from "../domain/membership.js";
import { date, type Row } from "./rows.js";

function fromRow(row: Row): Membership {
  return {
    merchantUuid: row.merchant_uuid as string,
    identityUuid: row.identity_uuid as string,
    createdAt: date(row.created_at),
  };
}

/** MembershipStore on PostgreSQL. */
export class MembershipRepository implements MembershipStore {
  constructor(private readonly em: EntityManager) {}

  async insertIfAbsent(membership: Membership): Promise<boolean> {
    // The primary key decides between concurrent twins; the loser inserts nothing.
    const rows = await this.em.execute(
      `insert into memberships (merchant_uuid, identity_uuid, created_at) values (?, ?, ?)
       on conflict (merchant_uuid, identity_uuid) do nothing
       returning merchant_uuid`,
      [membership.merchantUuid, membership.identityUuid, membership.createdAt],
    );
    return rows.length === 1;
  }

  async find(merchantUuid: string, identityUuid: string): Promise<Membership | null> {
    const rows = await this.em.execute(
      `select merchant_uuid, identity_uuid, created_at from memberships where merchant_uuid = ? and identity_uuid = ?`,
      [merchantUuid, identityUuid],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async listByIdentity(identityUuid: string): Promise<Membership[]> {
    const rows = await this.em.execute(
      `select merchant_uuid, identity_uuid, created_at from memberships
        where identity_uuid = ? order by created_at, merchant_uuid`,
      [identityUuid],
    );
    return rows.map(fromRow);
  }
}
