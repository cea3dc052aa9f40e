import { EntitySchema } from "@payin/db";
import type { MerchantStatus } from "../domain/merchant.js";

export interface MerchantRow {
  uuid: string;
  displayName: string;
  legalName: string | null;
  status: MerchantStatus;
  createdAt: Date;
  updatedAt: Date;
}

export const MerchantEntity = new EntitySchema<MerchantRow>({
  name: "MerchantRow",
  tableName: "merchants",
  properties: {
    uuid: { type: "uuid", primary: true },
    displayName: { type: "string", length: 150 },
    legalName: { type: "string", length: 255, nullable: true },
    status: { type: "string", length: 16, index: true },
    createdAt: { type: "Date", columnType: "timestamptz(3)" },
    updatedAt: { type: "Date", columnType: "timestamptz(3)" },
  },
});

export const entities = [MerchantEntity];
