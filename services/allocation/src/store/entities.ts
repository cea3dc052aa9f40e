import { EntitySchema } from "@payin/db";

export interface WalletRow {
  merchantUuid: string;
  xpub: string;
  nextIndex: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface AllocationRow {
  intentUuid: string;
  merchantUuid: string;
  addressIndex: number;
  address: string;
  rail: string;
  derivationPath: string;
  createdAt: Date;
}

export const WalletEntity = new EntitySchema<WalletRow>({
  name: "WalletRow",
  tableName: "wallets",
  properties: {
    merchantUuid: { type: "uuid", primary: true },
    xpub: { type: "text" },
    nextIndex: { type: "integer", default: 0 },
    createdAt: { type: "Date", columnType: "timestamptz(3)" },
    updatedAt: { type: "Date", columnType: "timestamptz(3)" },
  },
});

export const AllocationEntity = new EntitySchema<AllocationRow>({
  name: "AllocationRow",
  tableName: "allocations",
  uniques: [{ properties: ["merchantUuid", "addressIndex"] }],
  properties: {
    intentUuid: { type: "uuid", primary: true },
    merchantUuid: { type: "uuid" },
    addressIndex: { type: "integer" },
    address: { type: "string", length: 42, unique: true },
    rail: { type: "string", length: 16 },
    derivationPath: { type: "text" },
    createdAt: { type: "Date", columnType: "timestamptz(3)" },
  },
});

export const entities = [WalletEntity, AllocationEntity];
