import type { EntityManager } from "@payin/db";
import type { OperatingMode, OperatingProfile, OperatingProfileStore } from "../domain/operating-profile.js";
import { date, type Row } from "./rows.js";

const COLUMNS = `merchant_uuid, operating_mode, created_at, updated_at`;

function fromRow(row: Row): OperatingProfile {
  return {
    merchantUuid: row.merchant_uuid as string,
    operatingMode: row.operating_mode as OperatingMode,
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  };
}

/** OperatingProfileStore on PostgreSQL. */
export class OperatingProfileRepository implements OperatingProfileStore {
  constructor(private readonly em: EntityManager) {}

  async upsert(merchantUuid: string, mode: OperatingMode, at: Date): Promise<{ profile: OperatingProfile; changed: boolean }> {
    // One statement creates or changes the profile; an unchanged mode writes
    // nothing (the WHERE of DO UPDATE), so it returns no row.
    const rows = await this.em.execute(
      `insert into operating_profiles as o (merchant_uuid, operating_mode, created_at, updated_at) values (?, ?, ?, ?)
       on conflict (merchant_uuid) do update
         set operating_mode = excluded.operating_mode, updated_at = greatest(o.updated_at, excluded.updated_at)
         where o.operating_mode <> excluded.operating_mode
       returning ${COLUMNS}`,
      [merchantUuid, mode, at, at],
    );
    if (rows[0]) return { profile: fromRow(rows[0]), changed: true };
    const current = await this.em.execute(`select ${COLUMNS} from operating_profiles where merchant_uuid = ?`, [merchantUuid]);
    if (!current[0]) throw new Error("operating profile vanished after a conflicting upsert");
    return { profile: fromRow(current[0]), changed: false };
  }
}
