import { isUniqueViolation, type EntityManager } from "@payin/db";
import type {
  MachineCredential,
  MachineCredentialStatus,
  MachineCredentialStore,
  StoredMachineCredential,
} from "../domain/machine-credential.js";
import { MachineCredentialEntity, type MachineCredentialRow } from "./entities.js";

/** The partial unique index that keeps at most one active credential per merchant. */
export const ONE_ACTIVE_PER_MERCHANT = "machine_credentials_one_active_per_merchant";

const COLUMNS = `credential_uuid, merchant_uuid, key_id, secret_hash, status, created_at, last_used_at, revoked_at, replaced_by_uuid`;

function date(value: unknown): Date | null {
  return value === null || value === undefined ? null : new Date(value as string | Date);
}

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

/** MachineCredentialStore on PostgreSQL; one instance per request (a forked EntityManager). */
export class MachineCredentialRepository implements MachineCredentialStore {
  constructor(private readonly em: EntityManager) {}

  async insertActive(credential: MachineCredential, secretHash: Buffer): Promise<boolean> {
    const row: MachineCredentialRow = { ...credential, status: "active", secretHash };
    try {
      await this.em.insert(MachineCredentialEntity, row);
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
}
