import { Migration } from "@payin/db";

/**
 * Recovery codes stored as HMAC-SHA256(pepper, salt ‖ SHA-256(code)) with a
 * 16-byte salt per code (see domain/mfa.ts). Rows written before this have no
 * salt and hold SHA-256(code) alone; the pepper derives from the TOTP key, which
 * migrations do not have, so the identity service salts those rows itself when
 * it starts (saltUnsaltedRecoveryCodes) instead of here. A row without a salt is
 * never accepted as a code.
 */
export class RecoveryCodeSalts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table recovery_codes add column salt bytea
        constraint recovery_codes_salt_length check (octet_length(salt) = 16)`);
    this.addSql(`create index recovery_codes_unsalted_idx on recovery_codes (identity_uuid) where salt is null`);
  }
}
