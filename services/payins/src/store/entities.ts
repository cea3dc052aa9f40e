import { EntitySchema } from "@payin/db";

/** Row of pay_in_intents (see migrations for constraints and indexes). */
export interface PayInIntentRow {
  intentUuid: string;
  merchantUuid: string;
  status: string;
  asset: string;
  rail: string;
  expectedAmount: string;
  address: string | null;
  allocationReference: string | null;
  reference: string | null;
  jurisdiction: string;
  createdAt: Date;
  expiresAt: Date;
  updatedAt: Date;
}

export const PayInIntentEntity = new EntitySchema<PayInIntentRow>({
  name: "PayInIntentRow",
  tableName: "pay_in_intents",
  properties: {
    intentUuid: { type: "uuid", primary: true },
    merchantUuid: { type: "uuid" },
    status: { type: "string", length: 20 },
    asset: { type: "string", length: 10 },
    rail: { type: "string", length: 10 },
    expectedAmount: { type: "decimal", columnType: "numeric" },
    address: { type: "string", length: 42, nullable: true },
    allocationReference: { type: "text", nullable: true },
    reference: { type: "string", length: 255, nullable: true },
    jurisdiction: { type: "string", columnType: "char(2)" },
    createdAt: { type: "Date", columnType: "timestamptz(3)" },
    expiresAt: { type: "Date", columnType: "timestamptz(3)" },
    updatedAt: { type: "Date", columnType: "timestamptz(3)" },
  },
});

/** Row of idempotency_keys: one per (merchant, key), kept with its intent. */
export interface IdempotencyKeyRow {
  merchantUuid: string;
  idempotencyKey: string;
  requestHash: string;
  intentUuid: string;
  createdAt: Date;
}

export const IdempotencyKeyEntity = new EntitySchema<IdempotencyKeyRow>({
  name: "IdempotencyKeyRow",
  tableName: "idempotency_keys",
  properties: {
    merchantUuid: { type: "uuid", primary: true },
    idempotencyKey: { type: "string", length: 64, primary: true },
    requestHash: { type: "string", columnType: "char(64)" },
    intentUuid: { type: "uuid" },
    createdAt: { type: "Date", columnType: "timestamptz(3)" },
  },
});

export const entities = [PayInIntentEntity, IdempotencyKeyEntity];
