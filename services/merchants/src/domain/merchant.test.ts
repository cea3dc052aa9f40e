import { describe, expect, it } from "vitest";
import { DomainError } from "@payin/errors";
import { getMerchant, refuseClosed, type Merchant, type MerchantStatus, type MerchantStore } from "./merchant.js";
import { MerchantsReason } from "./reasons.js";

const at = new Date(0);
const merchant = (status: MerchantStatus): Merchant => ({
  uuid: "01a1fe6a-0000-7000-8000-000000000001",
  displayName: "Shop",
  legalName: null,
  status,
  createdAt: at,
  updatedAt: at,
});

/** A store that finds only `found`; getMerchant uses nothing else. */
const storeOf = (found: Merchant | null) => ({ find: async () => found }) as unknown as MerchantStore;

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof DomainError ? error.reason : undefined;
  }
  return undefined;
}

describe("refuseClosed", () => {
  it("returns a merchant that is not closed, as it is", () => {
    for (const status of ["inactive", "active", "suspended"] as const) {
      const open = merchant(status);
      expect(refuseClosed(open)).toBe(open);
    }
  });

  it("refuses a closed merchant with MERCHANT_CLOSED: its configuration is frozen", () => {
    expect(reasonOf(() => refuseClosed(merchant("closed")))).toBe(MerchantsReason.MerchantClosed);
  });
});

describe("getMerchant", () => {
  it("returns a closed merchant unless requireOpen is set", async () => {
    const closed = merchant("closed");
    await expect(getMerchant(storeOf(closed), closed.uuid)).resolves.toBe(closed);
    await expect(getMerchant(storeOf(closed), closed.uuid, { requireOpen: false })).resolves.toBe(closed);
    await expect(getMerchant(storeOf(closed), closed.uuid, { requireOpen: true })).rejects.toMatchObject({
      reason: MerchantsReason.MerchantClosed,
    });
  });

  it("returns an open merchant with requireOpen, and answers MERCHANT_NOT_FOUND for none either way", async () => {
    const active = merchant("active");
    await expect(getMerchant(storeOf(active), active.uuid, { requireOpen: true })).resolves.toBe(active);
    for (const requireOpen of [false, true]) {
      await expect(getMerchant(storeOf(null), active.uuid, { requireOpen })).rejects.toMatchObject({
        reason: MerchantsReason.MerchantNotFound,
      });
    }
  });
});
