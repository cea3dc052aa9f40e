import { describe, expect, it } from "vitest";
import { refusal } from "@payin/testing/refusal";
import type { PayInIntent } from "./pay-in-intent.js";
import { listPayInTransfers, MAX_TRANSFERS_PER_PAGE, transferPage, type TransferLedger, type TransferPage } from "./list-transfers.js";
import type { PayInReader } from "./read-pay-in-intents.js";
import type { TransferEvidence } from "./settlement.js";

const SHOP = "0192a3b4-c5d6-7e8f-9012-3456789abcde";
const OTHER = "0192a3b4-c5d6-7e8f-9012-3456789abcdf";
const I1 = "0192a3b4-0000-7000-8000-000000000001";
const DEADLINE = new Date("2030-01-01T00:00:00Z");
const BEFORE = new Date("2029-12-31T23:00:00Z");

/** 10 usdc on erc20 (6 decimals), of SHOP. */
const INTENT: PayInIntent = {
  intentUuid: I1,
  merchantUuid: SHOP,
  status: "paid",
  asset: "usdc",
  rail: "erc20",
  expectedAmount: "10",
  address: `0x${"12".repeat(20)}`,
  allocationReference: "m/44'/60'/0'/0/1",
  reference: null,
  jurisdiction: "DE",
  createdAt: BEFORE,
  expiresAt: DEADLINE,
  updatedAt: BEFORE,
};

const reader: PayInReader = {
  get: async (merchantUuid, intentUuid) => (merchantUuid === INTENT.merchantUuid && intentUuid === INTENT.intentUuid ? INTENT : null),
  getMany: async () => [],
  list: async () => ({ intents: [], total: 0 }),
};

function usdc(amount: bigint, over: Partial<TransferEvidence & { n: number }> = {}): TransferEvidence & { n: number } {
  return { n: 0, rail: "erc20", asset: "usdc", decimals: 6, amount, blockTime: BEFORE, state: "settled", dust: false, afterPaid: false, ...over };
}

/** A ledger over `all`, paging as the store does, recording the pages it was asked for. */
function ledger(all: (TransferEvidence & { n: number })[]) {
  const asked: [string, TransferPage][] = [];
  const l: TransferLedger<TransferEvidence & { n: number }> = {
    async transfersOf(intentUuid, page) {
      asked.push([intentUuid, page]);
      return { all, page: all.slice(page.offset, page.offset + page.limit) };
    },
  };
  return { l, asked };
}

describe("transferPage", () => {
  it("takes a limit of 1 to the maximum and an offset of 0 or more", () => {
    expect(transferPage({ limit: 1, offset: 0 })).toEqual({ limit: 1, offset: 0 });
    expect(transferPage({ limit: MAX_TRANSFERS_PER_PAGE, offset: 7 })).toEqual({ limit: MAX_TRANSFERS_PER_PAGE, offset: 7 });
    expect(MAX_TRANSFERS_PER_PAGE).toBe(1000);
  });

  it("answers up to the maximum when no limit is given (0)", () => {
    expect(transferPage({ limit: 0, offset: 3 })).toEqual({ limit: MAX_TRANSFERS_PER_PAGE, offset: 3 });
  });

  it("refuses a limit above the maximum, a negative or fractional one, and a negative or fractional offset", async () => {
    const refused = (limit: number, offset: number) => refusal(Promise.resolve().then(() => transferPage({ limit, offset })));
    for (const limit of [MAX_TRANSFERS_PER_PAGE + 1, -1, 1.5]) {
      expect(await refused(limit, 0)).toEqual({ reason: "VALIDATION_ERROR", message: "limit must be 1 to 1000 (unset for up to 1000)" });
    }
    for (const offset of [-1, 0.5]) expect(await refused(1, offset)).toEqual({ reason: "VALIDATION_ERROR", message: "offset must be 0 or more" });
  });
});

describe("listPayInTransfers", () => {
  it("answers the page asked for, and the amounts and counts over every transfer", async () => {
    const all = [
      usdc(10_000_000n, { n: 1 }),
      ...Array.from({ length: 5 }, (_, i) => usdc(0n, { n: 2 + i, dust: true })),
      usdc(3_000_000n, { n: 7, afterPaid: true }),
      usdc(1_000_000n, { n: 8, afterPaid: true, state: "pending" }),
      usdc(2_000_000n, { n: 9, state: "pending" }),
    ];
    const { l, asked } = ledger(all);
    const listing = await listPayInTransfers(reader, l, { merchantUuid: SHOP, intentUuid: I1, limit: 2, offset: 6 });
    expect(asked).toEqual([[I1, { limit: 2, offset: 6 }]]);
    expect(listing.intent).toBe(INTENT);
    expect(listing.transfers.map((t) => t.n)).toEqual([7, 8]);
    expect(listing.total).toBe(9);
    expect(listing.dustCount).toBe(5);
    expect(listing.decision).toEqual({ paid: true, expected: 10_000_000n, received: 10_000_000n, pending: 2_000_000n, afterPaid: 3_000_000n, decimals: 6 });
  });

  it("answers nothing seen as zero counts and no transfer", async () => {
    const listing = await listPayInTransfers(reader, ledger([]).l, { merchantUuid: SHOP, intentUuid: I1, limit: 0, offset: 0 });
    expect({ total: listing.total, dustCount: listing.dustCount, transfers: listing.transfers }).toEqual({ total: 0, dustCount: 0, transfers: [] });
  });

  it("asks the ledger for up to the maximum when no limit is given", async () => {
    const { l, asked } = ledger([usdc(1n)]);
    await listPayInTransfers(reader, l, { merchantUuid: SHOP, intentUuid: I1, limit: 0, offset: 0 });
    expect(asked).toEqual([[I1, { limit: MAX_TRANSFERS_PER_PAGE, offset: 0 }]]);
  });

  it("answers PAY_IN_INTENT_NOT_FOUND for another merchant's intent, reading none of its transfers", async () => {
    const { l, asked } = ledger([usdc(1n)]);
    expect((await refusal(listPayInTransfers(reader, l, { merchantUuid: OTHER, intentUuid: I1, limit: 0, offset: 0 }))).reason).toBe("PAY_IN_INTENT_NOT_FOUND");
    expect(asked).toEqual([]);
  });

  it("refuses a bad page before reading anything", async () => {
    const { l, asked } = ledger([usdc(1n)]);
    expect((await refusal(listPayInTransfers(reader, l, { merchantUuid: SHOP, intentUuid: I1, limit: 1001, offset: 0 }))).reason).toBe("VALIDATION_ERROR");
    expect(asked).toEqual([]);
  });
});
