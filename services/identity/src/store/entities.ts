import { EntitySchema } from "@payin/db";
import type { MachineCredentialStatus } from "../domain/machine-credential.js";

export interface MachineCredentialRow {
  credentialUuid: string;
  merchantUuid: string;
  keyId: string;
  secretHash: Buffer;
  status: MachineCredentialStatus;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  replacedByUuid: string | null;
}

export const MachineCredentialEntity = new EntitySchema<MachineCredentialRow>({
  name: "MachineCredentialRow",
  tableName: "machine_credentials",
  properties: {
    credentialUuid: { type: "uuid", primary: true },
    merchantUuid: { type: "uuid" },
    keyId: { type: "string", length: 32, columnType: "char(32)", unique: true },
    secretHash: { type: "blob", columnType: "bytea" },
    status: { type: "string", length: 16 },
    createdAt: { type: "Date", columnType: "timestamptz(3)" },
    lastUsedAt: { type: "Date", columnType: "timestamptz(3)", nullable: true },
    revokedAt: { type: "Date", columnType: "timestamptz(3)", nullable: true },
    replacedByUuid: { type: "uuid", nullable: true },
  },
});

export const entities = [MachineCredentialEntity];
