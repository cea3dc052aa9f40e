import { dateOrNull, isUniqueViolation, sql, type Queryable } from "@payin/db";
import type { MachineCredential, MachineCredentialStatus, StoredMachineCredential } from "../domain/machine-credential.js";
import type { MachineCredentialAdminStore } from "../domain/stores.js";

/** The partial unique index that keeps at most one active credential per merchant. */
export const ONE_ACTIVE_PER_MERCHANT = "machine_credentials_one_active_per_merchant";

const COLUMNS = `credential_uuid, merchant_uuid, key_id, secret_hash, status, created_at, last_used_at, revoked_at, replaced_by_uuid`;

/** A row of COLUMNS (bytea as a Buffer, timestamps as text). */
interface CredentialRow {
  credential_uuid: string;
  merchant_uuid: string;
  key_id: string;
  secret_hash: Buffer;
  status: MachineCredentialStatus;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  replaced_by_uuid: string | null;
}

function fromRow(row: CredentialRow): StoredMachineCredential {
  return {
    credentialUuid: row.credential_uuid,
    merchantUuid: row.merchant_uuid,
    keyId: row.key_id,
    secretHash: row.secret_hash,
    status: row.status,
    createdAt: new Date(row.created_at),
    lastUsedAt: dateOrNull(row.last_used_at),
    revokedAt: dateOrNull(row.revoked_at),
    replacedByUuid: row.replaced_by_uuid,
  };
}

/** Class id of the advisory locks serialising one merchant's credential changes. */
const MERCHANT_LOCK_CLASS = 0x6d63; // "mc"

/** MachineCredentialAdminStore on PostgreSQL; one instance per request or transaction. */
export class MachineCredentialRepository implements MachineCredentialAdminStore {
  constructor(private readonly db: Queryable) {}

  async insertActive(credential: MachineCredential, secretHash: Buffer): Promise<boolean> {
    const { credentialUuid, merchantUuid, keyId, createdAt, lastUsedAt, revokedAt, replacedByUuid } = credential;
    try {
      await this.db.query(sql(`insert into machine_credentials (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`), [
        credentialUuid,
        merchantUuid,
        keyId,
        secretHash,
        "active",
        createdAt,
        lastUsedAt,
        revokedAt,
        replacedByUuid,
      ]);
      return true;
    } catch (error) {
      // The partial unique index decides, so concurrent creates cannot both win.
      if (isUniqueViolation(error, ONE_ACTIVE_PER_MERCHANT)) return false;
      throw error;
    }
  }

  async findByKeyId(keyId: string): Promise<StoredMachineCredential | null> {
    const rows = await this.db.query(sql<CredentialRow>(`select ${COLUMNS} from machine_credentials where key_id = $1`), [keyId]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async recordUse(credentialUuid: string, at: Date, olderThan: Date): Promise<void> {
    // Conditional, so concurrent uses within the interval write the row at most once.
    await this.db.query(sql(`update machine_credentials set last_used_at = $1
        where credential_uuid = $2 and (last_used_at is null or last_used_at < $3)`),
      [at, credentialUuid, olderThan],
    );
  }

  async listByMerchant(merchantUuid: string): Promise<MachineCredential[]> {
    const rows = await this.db.query(sql<CredentialRow>(`select ${COLUMNS} from machine_credentials where merchant_uuid = $1 order by created_at desc, credential_uuid desc`),
      [merchantUuid],
    );
    return rows.map((row) => {
      const { secretHash: _hash, ...credential } = fromRow(row);
      return credential;
    });
  }

  async lockMerchant(merchantUuid: string): Promise<void> {
    await this.db.query(sql(`select pg_advisory_xact_lock($1, hashtext($2))`), [MERCHANT_LOCK_CLASS, merchantUuid]);
  }

  async findActiveForUpdate(merchantUuid: string): Promise<StoredMachineCredential | null> {
    const rows = await this.db.query(sql<CredentialRow>(`select ${COLUMNS} from machine_credentials where merchant_uuid = $1 and status = 'active' for update`),
      [merchantUuid],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async findForUpdate(credentialUuid: string): Promise<StoredMachineCredential | null> {
    const rows = await this.db.query(sql<CredentialRow>(`select ${COLUMNS} from machine_credentials where credential_uuid = $1 for update`), [credentialUuid]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async markRevoked(credentialUuid: string, at: Date, replacedByUuid: string | null): Promise<void> {
    await this.db.query(sql(`update machine_credentials set status = 'revoked', revoked_at = $1, replaced_by_uuid = $2 where credential_uuid = $3`),
      [at, replacedByUuid, credentialUuid],
    );
  }
}
