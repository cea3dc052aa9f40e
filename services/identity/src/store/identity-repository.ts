import { dateOrNull, isUniqueViolation, sql, type Queryable } from "@payin/db";
import type { Role } from "../domain/permissions.js";
import {
  withoutHash,
  type Identity,
  type IdentityStatus,
  type IdentityStore,
  type StoredIdentity,
  type StoredRecoveryCode,
  type TotpFactor,
} from "../domain/stores.js";
import { valuesPlaceholders } from "./rows.js";

/** Unique constraint on the (lower-cased) email. */
export const EMAIL_UNIQUE = "identities_email_key";
/** Key of the transaction-scoped advisory lock around platform_admin roster changes. */
const ADMIN_ROSTER_LOCK = "identity:platform_admin_roster";

/** Columns of an identity row aliased `i`, its roles and whether TOTP is confirmed. */
export const IDENTITY_COLUMNS = `
  i.identity_uuid, i.email, i.status, i.created_at, i.password_hash,
  array(select r.role::text from identity_roles r where r.identity_uuid = i.identity_uuid order by r.role) as roles,
  exists (select 1 from totp_factors f where f.identity_uuid = i.identity_uuid and f.confirmed_at is not null) as mfa_enrolled`;

/** A row of IDENTITY_COLUMNS, as the driver answers it (timestamps as text, text[] as an array). */
export interface IdentityRow {
  identity_uuid: string;
  email: string;
  status: IdentityStatus;
  created_at: string;
  password_hash: string;
  roles: Role[];
  mfa_enrolled: boolean;
}

/** A row selected with IDENTITY_COLUMNS, as a stored identity. */
export function identityFromRow(row: IdentityRow): StoredIdentity {
  return {
    identityUuid: row.identity_uuid,
    email: row.email,
    status: row.status,
    roles: row.roles,
    mfaEnrolled: row.mfa_enrolled,
    createdAt: new Date(row.created_at),
    passwordHash: row.password_hash,
  };
}

function publicIdentity(row: IdentityRow): Identity {
  return withoutHash(identityFromRow(row));
}

/** A totp_factors row (bytea as a Buffer, bigint as text). */
interface FactorRow {
  identity_uuid: string;
  secret_ciphertext: Buffer;
  confirmed_at: string | null;
  last_used_step: string | null;
}

function factorFromRow(row: FactorRow): TotpFactor {
  return {
    identityUuid: row.identity_uuid,
    secretCiphertext: row.secret_ciphertext,
    confirmedAt: dateOrNull(row.confirmed_at),
    lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step),
  };
}

/** IdentityStore on PostgreSQL; one instance per request or transaction. */
export class IdentityRepository implements IdentityStore {
  constructor(private readonly db: Queryable) {}

  async insert(identity: Identity, passwordHash: string): Promise<boolean> {
    try {
      // One statement, so the identity and its roles appear together or not at all.
      await this.db.query(sql(`with created as (
           insert into identities (identity_uuid, email, password_hash, status, created_at, password_changed_at)
           values ($1, $2, $3, $4, $5, $6) returning identity_uuid)
         insert into identity_roles (identity_uuid, role, granted_at)
         select created.identity_uuid, role, $7 from created, unnest(string_to_array($8, ',')) as role`),
        [
          identity.identityUuid,
          identity.email,
          passwordHash,
          identity.status,
          identity.createdAt,
          identity.createdAt,
          identity.createdAt,
          identity.roles.join(","),
        ],
      );
      return true;
    } catch (error) {
      if (isUniqueViolation(error, EMAIL_UNIQUE)) return false;
      throw error;
    }
  }

  async findByEmail(email: string): Promise<StoredIdentity | null> {
    const rows = await this.db.query(sql<IdentityRow>(`select ${IDENTITY_COLUMNS} from identities i where i.email = $1`), [email]);
    return rows[0] ? identityFromRow(rows[0]) : null;
  }

  async findByUuid(identityUuid: string, options: { forUpdate?: boolean } = {}): Promise<StoredIdentity | null> {
    const lock = options.forUpdate ? "for update of i" : "";
    const rows = await this.db.query(sql<IdentityRow>(`select ${IDENTITY_COLUMNS} from identities i where i.identity_uuid = $1 ${lock}`), [identityUuid]);
    return rows[0] ? identityFromRow(rows[0]) : null;
  }

  async list(limit: number, offset: number): Promise<{ identities: Identity[]; total: number }> {
    const rows = await this.db.query(sql<IdentityRow>(`select ${IDENTITY_COLUMNS} from identities i order by i.created_at, i.identity_uuid limit $1 offset $2`),
      [limit, offset],
    );
    const [count] = await this.db.query(sql<{ total: number }>(`select count(*)::int as total from identities`));
    return { identities: rows.map(publicIdentity), total: count!.total };
  }

  async setStatus(identityUuid: string, status: IdentityStatus, at: Date): Promise<void> {
    await this.db.query(sql(`update identities set status = $1, status_changed_at = $2 where identity_uuid = $3`), [status, at, identityUuid]);
  }

  async setPasswordHash(identityUuid: string, passwordHash: string, at: Date): Promise<void> {
    await this.db.query(sql(`update identities set password_hash = $1, password_changed_at = $2 where identity_uuid = $3`), [
      passwordHash,
      at,
      identityUuid,
    ]);
  }

  async deleteRole(identityUuid: string, role: Role): Promise<boolean> {
    const rows = await this.db.query(sql(`delete from identity_roles where identity_uuid = $1 and role = $2 returning role`), [identityUuid, role]);
    return rows.length > 0;
  }

  async lockAdminRoster(): Promise<void> {
    await this.db.query(sql(`select pg_advisory_xact_lock(hashtext($1))`), [ADMIN_ROSTER_LOCK]);
  }

  async countActiveHolders(role: Role, excludingUuid: string): Promise<number> {
    const [row] = await this.db.query(sql<{ n: number }>(`select count(*)::int as n from identity_roles r join identities i on i.identity_uuid = r.identity_uuid
        where r.role = $1 and i.status = 'active' and r.identity_uuid <> $2`),
      [role, excludingUuid],
    );
    return row!.n;
  }

  async anyHolder(role: Role): Promise<boolean> {
    const [row] = await this.db.query(sql<{ held: boolean }>(`select exists (select 1 from identity_roles where role = $1) as held`), [role]);
    return row!.held;
  }

  async findTotpFactor(identityUuid: string): Promise<TotpFactor | null> {
    const rows = await this.db.query(sql<FactorRow>(`select identity_uuid, secret_ciphertext, confirmed_at, last_used_step from totp_factors where identity_uuid = $1`),
      [identityUuid],
    );
    return rows[0] ? factorFromRow(rows[0]) : null;
  }

  async savePendingTotp(identityUuid: string, secretCiphertext: Buffer, at: Date): Promise<boolean> {
    const rows = await this.db.query(sql(`insert into totp_factors (identity_uuid, secret_ciphertext, created_at) values ($1, $2, $3)
       on conflict (identity_uuid) do update
         set secret_ciphertext = excluded.secret_ciphertext, created_at = excluded.created_at, last_used_step = null
         where totp_factors.confirmed_at is null
       returning identity_uuid`),
      [identityUuid, secretCiphertext, at],
    );
    return rows.length > 0;
  }

  async confirmTotp(identityUuid: string, secretCiphertext: Buffer, lastUsedStep: number | null, at: Date): Promise<boolean> {
    const rows = await this.db.query(sql(`update totp_factors set confirmed_at = $1, last_used_step = $2
        where identity_uuid = $3 and confirmed_at is null and secret_ciphertext = $4
        returning identity_uuid`),
      [at, lastUsedStep, identityUuid, secretCiphertext],
    );
    return rows.length > 0;
  }

  async useTotpStep(identityUuid: string, step: number): Promise<boolean> {
    // Conditional, so two concurrent uses of one code cannot both pass.
    const rows = await this.db.query(sql(`update totp_factors set last_used_step = $1
        where identity_uuid = $2 and confirmed_at is not null and (last_used_step is null or last_used_step < $3)
        returning identity_uuid`),
      [step, identityUuid, step],
    );
    return rows.length > 0;
  }

  async replaceRecoveryCodes(identityUuid: string, codes: StoredRecoveryCode[], at: Date): Promise<void> {
    await this.db.query(sql(`delete from recovery_codes where identity_uuid = $1`), [identityUuid]);
    if (codes.length === 0) return;
    await this.db.query(sql(`insert into recovery_codes (identity_uuid, code_hash, salt, created_at) values ${valuesPlaceholders(codes.length, 4)}`),
      codes.flatMap((code) => [identityUuid, code.codeHash, code.salt, at]),
    );
  }

  async listUnusedRecoveryCodes(identityUuid: string): Promise<StoredRecoveryCode[]> {
    const rows = await this.db.query(sql<{ code_hash: Buffer; salt: Buffer }>(`select code_hash, salt from recovery_codes where identity_uuid = $1 and used_at is null and salt is not null`),
      [identityUuid],
    );
    return rows.map((row) => ({ codeHash: row.code_hash, salt: row.salt }));
  }

  async useRecoveryCode(identityUuid: string, codeHash: Buffer, at: Date): Promise<boolean> {
    const rows = await this.db.query(sql(`update recovery_codes set used_at = $1
        where identity_uuid = $2 and code_hash = $3 and used_at is null and salt is not null
        returning identity_uuid`),
      [at, identityUuid, codeHash],
    );
    return rows.length > 0;
  }

  async listUnsaltedRecoveryCodes(limit: number): Promise<{ identityUuid: string; digest: Buffer }[]> {
    const rows = await this.db.query(sql<{ identity_uuid: string; code_hash: Buffer }>(`select identity_uuid, code_hash from recovery_codes where salt is null limit $1`), [
      limit,
    ]);
    return rows.map((row) => ({ identityUuid: row.identity_uuid, digest: row.code_hash }));
  }

  async saltRecoveryCode(identityUuid: string, digest: Buffer, code: StoredRecoveryCode): Promise<boolean> {
    // Conditional on the row still being unsalted, so concurrent starts salt it once.
    const rows = await this.db.query(sql(`update recovery_codes set code_hash = $1, salt = $2
        where identity_uuid = $3 and code_hash = $4 and salt is null
        returning identity_uuid`),
      [code.codeHash, code.salt, identityUuid, digest],
    );
    return rows.length > 0;
  }
}
