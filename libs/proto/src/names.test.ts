import { create, type DescEnum } from "@bufbuild/protobuf";
import { describe, expect, expectTypeOf, it } from "vitest";
import { allocationV1, identityV1, merchantsV1, payinsV1 } from "./index.js";
import {
  CHECKOUT_STATE,
  enumNames,
  MERCHANT_STATUS,
  MERCHANT_TRANSITION,
  PAY_IN_STATUS,
  PRINCIPAL_KIND,
  READINESS_REASON,
  readinessReasonNames,
  TRANSFER_STATE,
  type CheckoutStateName,
  type EnumNames,
  type MerchantStatusName,
  type PayInStatusName,
  type ReadinessReasonName,
  type TransferStateName,
} from "./names.js";

/** Every enum of every contract file, from the descriptors, with the table that names it. */
const TABLES: [DescEnum, EnumNames<number, string>][] = [
  [merchantsV1.MerchantStatusSchema, MERCHANT_STATUS],
  [merchantsV1.MerchantTransitionSchema, MERCHANT_TRANSITION],
  [payinsV1.PayInStatusSchema, PAY_IN_STATUS],
  [payinsV1.TransferStateSchema, TRANSFER_STATE],
  [payinsV1.CheckoutStateSchema, CHECKOUT_STATE],
  [allocationV1.ReadinessReasonSchema, READINESS_REASON],
  [identityV1.PrincipalKindSchema, PRINCIPAL_KIND],
];

describe("enum names", () => {
  it("has a table for every enum the contracts declare", () => {
    const declared = [merchantsV1, payinsV1, allocationV1, identityV1]
      .flatMap((file) => Object.values(file))
      .filter((v): v is DescEnum => typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "enum")
      .map((e) => e.typeName)
      .sort();
    expect(TABLES.map(([schema]) => schema.typeName).sort()).toEqual(declared);
  });

  it.each(TABLES.map(([schema, table]) => [schema.typeName, schema, table] as const))(
    "%s: every value but UNSPECIFIED has exactly one name, and it round-trips",
    (_, schema, table) => {
      const values = schema.values.filter((v) => v.number !== 0);
      expect(table.names).toHaveLength(values.length);
      expect(new Set(table.names).size).toBe(values.length);
      for (const v of values) {
        const name = table.nameOf(v.number)!;
        expect(`${schema.sharedPrefix}${name}`.toUpperCase()).toBe(v.name);
        expect(table.byName[name]).toBe(v.number);
        expect(table.isName(name)).toBe(true);
      }
      expect(table.nameOf(0)).toBeUndefined();
      expect(table.nameOf(Math.max(...values.map((v) => v.number)) + 1)).toBeUndefined();
      expect(table.isName("unspecified")).toBe(false);
      expect(table.isName("toString")).toBe(false);
    },
  );

  it("spells the wire names the API and the pages use", () => {
    expect(PAY_IN_STATUS.names).toEqual(["created", "awaiting_payment", "paid"]);
    expect(MERCHANT_STATUS.names).toEqual(["inactive", "active", "suspended", "closed"]);
    expect(TRANSFER_STATE.names).toEqual(["pending", "settled", "orphaned"]);
    expect(CHECKOUT_STATE.names).toEqual(["open", "started", "paid", "disabled"]);
    expect(MERCHANT_TRANSITION.names).toEqual(["activate", "deactivate", "suspend", "close"]);
    expect(READINESS_REASON.names[0]).toBe("merchant_inactive");
  });

  it("derives the name types from the generated enums", () => {
    expectTypeOf<PayInStatusName>().toEqualTypeOf<"created" | "awaiting_payment" | "paid">();
    expectTypeOf<TransferStateName>().toEqualTypeOf<"pending" | "settled" | "orphaned">();
    expectTypeOf<CheckoutStateName>().toEqualTypeOf<"open" | "started" | "paid" | "disabled">();
    expectTypeOf<MerchantStatusName>().toEqualTypeOf<"inactive" | "active" | "suspended" | "closed">();
    expectTypeOf(READINESS_REASON.names).toEqualTypeOf<readonly ReadinessReasonName[]>();
    expectTypeOf<ReadinessReasonName>().toEqualTypeOf<(typeof READINESS_REASON.names)[number]>();
    expectTypeOf(PAY_IN_STATUS.byName.awaiting_payment).toEqualTypeOf<payinsV1.PayInStatus>();
    expectTypeOf(PAY_IN_STATUS.nameOf).returns.toEqualTypeOf<PayInStatusName | undefined>();
  });

  it("reads a pair's readiness reasons from the enum values, and falls back to the codes sent when a value is unknown or none was sent", () => {
    const { ReadinessReason, PairReadinessSchema } = allocationV1;
    const pair = (reasonCodes: number[], reasons: string[]) => create(PairReadinessSchema, { reasonCodes, reasons });
    expect(readinessReasonNames(pair([ReadinessReason.MERCHANT_INACTIVE, ReadinessReason.PROVIDER_NOT_READY], []))).toEqual(["merchant_inactive", "provider_not_ready"]);
    expect(readinessReasonNames(pair([], ["wallet_not_ready"]))).toEqual(["wallet_not_ready"]);
    expect(readinessReasonNames(pair([99], ["some_new_reason"]))).toEqual(["some_new_reason"]);
    expect(readinessReasonNames(pair([ReadinessReason.WALLET_NOT_READY, 99], ["wallet_not_ready", "some_new_reason"]))).toEqual(["wallet_not_ready", "some_new_reason"]);
    expect(readinessReasonNames(pair([], []))).toEqual([]);
  });

  it("refuses an enum object that disagrees with its descriptor", () => {
    expect(() => enumNames(payinsV1.PayInStatusSchema, { UNSPECIFIED: 0, CREATED: 1, AWAITING_PAYMENT: 2, PAID: 4 })).toThrow(/PAY_IN_STATUS_PAID/);
  });
});
