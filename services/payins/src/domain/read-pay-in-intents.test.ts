import { describe, expect, it } from "vitest";
import { refusal } from "@payin/testing/refusal";
import type { PayInIntent } from "./pay-in-intent.js";
import {
  DEFAULT_LIMIT,
  getPayInIntent,
  getPayInIntents,
  listPayInIntents,
  MAX_BATCH_LOOKUPS,
  MAX_LIMIT,
  type ListFilter,
  type PayInReader,
} from "./read-pay-in-intents.js";

const SHOP = "0192a3b4-c5d6-7e8f-9012-3456789abcde";
const OTHER = "0192a3b4-c5d6-7e8f-9012-3456789abcdf";
const I1 = "0192a3b4-0000-7000-8000-000000000001";
const I2 = "0192a3b4-0000-7000-8000-000000000002";
const I3 = "0192a3b4-0000-7000-8000-000000000003";

function intent(intentUuid: string, merchantUuid: string): PayInIntent {
  const at = new Date("2029-06-01T12:00:00Z");
  return {
    intentUuid,
    merchantUuid,
    status: "created",
    asset: "usdt",
    rail: "bep20",
    expectedAmount: "10",
    address: null,
    allocationReference: null,
    reference: null,
    jurisdiction: "DE",
    createdAt: at,
    expiresAt: new Date("2030-01-01T00:00:00Z"),
    updatedAt: at,
  };
}

/** A reader over a few intents, recording what it was asked. */
function reader(intents: PayInIntent[]) {
  const calls = { get: [] as [string, string][], getMany: [] as string[][], list: [] as ListFilter[] };
  const r: PayInReader = {
    async get(merchantUuid, intentUuid) {
      calls.get.push([merchantUuid, intentUuid]);
      return intents.find((i) => i.intentUuid === intentUuid && i.merchantUuid === merchantUuid) ?? null;
    },
    async getMany(intentUuids) {
      calls.getMany.push([...intentUuids]);
      return intents.filter((i) => intentUuids.includes(i.intentUuid));
    },
    async list(filter) {
      calls.list.push(filter);
      return { intents, total: intents.length };
    },
  };
  return { r, calls };
}

describe("getPayInIntent", () => {
  it("answers the merchant's intent", async () => {
    const one = intent(I1, SHOP);
    const { r, calls } = reader([one]);
    expect(await getPayInIntent(r, SHOP, I1)).toBe(one);
    expect(calls.get).toEqual([[SHOP, I1]]);
  });

  it("answers PAY_IN_INTENT_NOT_FOUND for a missing intent and for another merchant's", async () => {
    const { r } = reader([intent(I1, OTHER)]);
    expect(await refusal(getPayInIntent(r, SHOP, I1))).toEqual({ reason: "PAY_IN_INTENT_NOT_FOUND", message: "pay-in intent not found" });
    expect((await refusal(getPayInIntent(r, SHOP, I2))).reason).toBe("PAY_IN_INTENT_NOT_FOUND");
  });
});

describe("getPayInIntents", () => {
  it("answers each lookup in order with one read, null where that merchant has no such intent", async () => {
    const mine = intent(I1, SHOP);
    const theirs = intent(I2, OTHER);
    const { r, calls } = reader([mine, theirs]);
    const answers = await getPayInIntents(r, [
      { merchantUuid: SHOP, intentUuid: I2 },
      { merchantUuid: SHOP, intentUuid: I1 },
      { merchantUuid: OTHER, intentUuid: I2 },
      { merchantUuid: SHOP, intentUuid: I3 },
      { merchantUuid: SHOP, intentUuid: I1 },
    ]);
    expect(answers).toEqual([null, mine, theirs, null, mine]);
    // Each uuid read once, in the order first asked.
    expect(calls.getMany).toEqual([[I2, I1, I3]]);
  });

  it("does not read uuids that are not canonical lower case, nor lookups of such a merchant: they are missing", async () => {
    const upper = intent(I1.toUpperCase(), SHOP);
    const { r, calls } = reader([upper, intent(I2, SHOP.toUpperCase()), intent(I3, SHOP)]);
    const answers = await getPayInIntents(r, [
      { merchantUuid: SHOP, intentUuid: I1.toUpperCase() },
      { merchantUuid: SHOP.toUpperCase(), intentUuid: I2 },
      { merchantUuid: SHOP, intentUuid: "not-a-uuid" },
      { merchantUuid: SHOP, intentUuid: I3 },
    ]);
    expect(answers).toEqual([null, null, null, intent(I3, SHOP)]);
    expect(calls.getMany).toEqual([[I3]]);
  });

  it("does not read at all when no lookup is well-formed", async () => {
    const { r, calls } = reader([]);
    expect(await getPayInIntents(r, [{ merchantUuid: SHOP, intentUuid: "x" }])).toEqual([null]);
    expect(calls.getMany).toEqual([]);
  });

  it("takes 1 to 1000 lookups", async () => {
    const { r } = reader([]);
    expect(MAX_BATCH_LOOKUPS).toBe(1000);
    expect(await refusal(getPayInIntents(r, []))).toEqual({ reason: "VALIDATION_ERROR", message: "a batch read takes 1 to 1000 lookups" });
    const lookups = Array.from({ length: 1001 }, () => ({ merchantUuid: SHOP, intentUuid: I1 }));
    expect((await refusal(getPayInIntents(r, lookups))).reason).toBe("VALIDATION_ERROR");
    expect(await getPayInIntents(r, lookups.slice(1))).toHaveLength(1000);
    expect(await getPayInIntents(r, lookups.slice(0, 1))).toEqual([null]);
  });
});

describe("listPayInIntents", () => {
  const input = { merchantUuid: SHOP, limit: DEFAULT_LIMIT, offset: 0 };

  it("lists with the filter it was given", async () => {
    const { r, calls } = reader([intent(I1, SHOP)]);
    expect(await listPayInIntents(r, { ...input, limit: 1, offset: 5, status: "paid", asset: "usdc" })).toEqual({
      intents: [intent(I1, SHOP)],
      total: 1,
    });
    expect(calls.list).toEqual([{ merchantUuid: SHOP, limit: 1, offset: 5, status: "paid", asset: "usdc" }]);
  });

  it("lists without a status or asset filter when none is given", async () => {
    const { r, calls } = reader([]);
    await listPayInIntents(r, input);
    expect(calls.list).toEqual([{ merchantUuid: SHOP, limit: 20, offset: 0, status: undefined, asset: undefined }]);
  });

  it.each([1, MAX_LIMIT])("accepts a limit of %i", async (limit) => {
    const { r, calls } = reader([]);
    await listPayInIntents(r, { ...input, limit });
    expect(calls.list[0]!.limit).toBe(limit);
  });

  it.each(["created", "awaiting_payment", "paid"])("accepts status %s", async (status) => {
    const { r, calls } = reader([]);
    await listPayInIntents(r, { ...input, status });
    expect(calls.list[0]!.status).toBe(status);
  });

  it.each([
    [{ limit: 0 }, "limit must be 1 to 100"],
    [{ limit: 101 }, "limit must be 1 to 100"],
    [{ limit: 1.5 }, "limit must be 1 to 100"],
    [{ limit: Number.NaN }, "limit must be 1 to 100"],
    [{ offset: -1 }, "offset must be 0 or more"],
    [{ offset: 0.5 }, "offset must be 0 or more"],
    [{ status: "expired" }, "status must be one of: created, awaiting_payment, paid"],
    [{ status: "" }, "status must be one of: created, awaiting_payment, paid"],
    [{ asset: "btc" }, "asset must be one of: usdt, usdc"],
    [{ asset: "" }, "asset must be one of: usdt, usdc"],
  ])("refuses %j", async (patch, message) => {
    const { r, calls } = reader([]);
    expect(await refusal(listPayInIntents(r, { ...input, ...patch }))).toEqual({ reason: "VALIDATION_ERROR", message });
    expect(calls.list).toEqual([]);
  });
});
