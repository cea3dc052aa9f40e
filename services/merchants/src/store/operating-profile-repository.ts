import { sql, type Queryable } from "@payin/db";
import type { OperatingMode, OperatingProfile, OperatingProfileStore } from "../domain/operating-profile.js";

const COLUMNS = `merchant_uuid, operating_mode, created_at, updated_at`;

interface ProfileRow {
  merchant_uuid: string;
  operating_mode: OperatingMode;
  created_at: string;
  updated_at: string;
}

function fromRow(row: ProfileRow): OperatingProfile {
  return { merchantUuid: row.merchant_uuid, operatingMode: row.operating_mode, createdAt: new Date(row.created_at), updatedAt: new Date(row.updated_at) };
}

/** Creates or changes the profile; an unchanged mode writes nothing (the WHERE of DO UPDATE), so it returns no row. */
const UPSERT = sql<ProfileRow>(`insert into operating_profiles as o (merchant_uuid, operating_mode, created_at, updated_at) values ($1, $2, $3, $4)
       on conflict (merchant_uuid) do update
         set operating_mode = excluded.operating_mode, updated_at = greatest(o.updated_at, excluded.updated_at)
         where o.operating_mode <> excluded.operating_mode
       returning ${COLUMNS}`);

const FIND = sql<ProfileRow>(`select ${COLUMNS} from operating_profiles where merchant_uuid = $1`);

/** OperatingProfileStore on PostgreSQL. */
export class OperatingProfileRepository implements OperatingProfileStore {
  constructor(private readonly db: Queryable) {}

  async upsert(merchantUuid: string, mode: OperatingMode, at: Date): Promise<{ profile: OperatingProfile; changed: boolean }> {
    const [row] = await this.db.query(UPSERT, [merchantUuid, mode, at, at]);
    if (row) return { profile: fromRow(row), changed: true };
    const [current] = await this.db.query(FIND, [merchantUuid]);
    if (!current) throw new Error("operating profile vanished after a conflicting upsert");
    return { profile: fromRow(current), changed: false };
  }
}
