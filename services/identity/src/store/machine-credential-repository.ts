import { isUniqueViolation, type EntityManager } from "@payin/db";
import type { MachineCredential, MachineCredentialStatus, StoredMachineCredential } from "../domain/machine-credential.js";
import type { MachineCredentialAdminStore } from "../domain/stores.js";
import { date } from "./rows.js";

/** The partial unique index that keeps at most one active credential per merchant. */
export const ONE_ACTIVE_PER_MERCHANT = "machine_credentials_one_active_per_merchant";

const COLUMNS = `credential_uuid, merchant_uuid, key_id, secret_hash, status, created_at, last_used_at, revoked_at, replaced_by_uuid`;


function fromRow(row: Record<string, unknown>): StoredMachineCredential {
  return {
    credentialUuid: row.credential_uuid as string,
    merchantUuid: row.merchant_uuid as string,
    keyId: row.key_id as string,
    secretHash: row.secret_hash as Buffer,
    status: row.status as MachineCredentialStatus,
    createdAt: date(row.created_at)!,
    lastUsedAt: date(row.last_used_at),
    revokedAt: date(row.revoked_at),
    replacedByUuid: (row.replaced_by_uuid as string | null) ?? null,
  };
}

/** Class id of the advisory locks serialising one merchant's credential changes. */
const MERCHANT_LOCK_CLASS = 0x6d63; // "mc"

/** MachineCredentialAdminStore on PostgreSQL; one instance per request or transaction. */
export class MachineCredentialRepository implements MachineCredentialAdminStore {
  constructor(private readonly em: EntityManager) {}

  async insertActive(credential: MachineCredential, secretHash: Buffer): Promise<boolean> {
    const { credentialUuid, merchantUuid, keyId, createdAt, lastUsedAt, revokedAt, replacedByUuid } = credential;
    try {
      await this.em.execute(`insert into machine_credentials (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
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
    const rows = await this.em.execute(`select ${COLUMNS} from machine_credentials where key_id = ?`, [keyId]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async recordUse(credentialUuid: string, at: Date, olderThan: Date): Promise<void> {
    // Conditional, so concurrent uses within the interval write the row at most once.
    await this.em.execute(
      `update machine_credentials set last_used_at = ?
        where credential_uuid = ? and (last_used_at is null or last_used_at < ?)`,
      [at, credentialUuid, olderThan],
    );
  }

  async listByMerchant(merchantUuid: string): Promise<MachineCredential[]> {
    const rows = await this.em.execute(
      `select ${COLUMNS} from machine_credentials where merchant_uuid = ? order by created_at desc, credential_uuid desc`,
      [merchantUuid],
    );
    return rows.map((row) => {
      const { secretHash: _hash, ...credential } = fromRow(row);
      return credential;
    });
  }

  async lockMerchant(merchantUuid: string): Promise<void> {
    await this.em.execute(`select pg_advisory_xact_lock(?, hashtext(?))`, [MERCHANT_LOCK_CLASS, merchantUuid]);
  }

  async findActiveForUpdate(merchantUuid: string): Promise<StoredMachineCredential | null> {
    const rows = await this.em.execute(
      `select ${COLUMNS} from machine_credentials where merchant_uuid = ? and status = 'active' for update`,
      [merchantUuid],
    );
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async findForUpdate(credentialUuid: string): Promise<StoredMachineCredential | null> {
    const rows = await this.em.execute(`select ${COLUMNS} from machine_credentials where credential_uuid = ? for update`, [credentialUuid]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  async markRevoked(credentialUuid: string, at: Date, replacedByUuid: string | null): Promise<void> {
    await this.em.execute(
      `update machine_credentials set status = 'revoked', revoked_at = ?, replaced_by_uuid = ? where credential_uuid = ?`,
      [at, replacedByUuid, credentialUuid],
    );
  }
}
