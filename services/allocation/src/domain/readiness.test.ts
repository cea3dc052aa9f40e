import { describe, expect, it } from "vitest";
import { MAX_ADDRESS_INDEX, READINESS_REASONS, decidePair, type MerchantReadinessInputs } from "./readiness.js";
import type { Wallet } from "./wallet.js";

const merchant: MerchantReadinessInputs = { status: "active", payinPolicyEffect: "allow", operatingMode: "hybrid", providerConnected: true };
const wallet = (nextIndex: number): Wallet => ({ merchantUuid: "m", xpub: "xpub", nextIndex, createdAt: new Date(0), updatedAt: new Date(0) });
const usdt = { asset: "usdt", rail: "bep20" };

describe("decidePair", () => {
  it("keeps the contract's order of reasons", () => {
    expect(READINESS_REASONS).toEqual([
      "merchant_inactive",
      "operating_profile_missing",
      "payin_not_allowed",
      "asset_not_configured",
      "wallet_not_ready",
      "allocator_not_ready",
      "provider_not_ready",
    ]);
  });

  it("is ready with nothing failing", () => {
    expect(decidePair(usdt, merchant, wallet(0))).toEqual({ ...usdt, ready: true, reasons: [] });
  });

  it("names every failing part, the merchant's and the platform's", () => {
    const none: MerchantReadinessInputs = { status: "closed", payinPolicyEffect: null, operatingMode: null, providerConnected: false };
    expect(decidePair({ asset: "usdc", rail: "bep20" }, none, null).reasons).toEqual([
      "merchant_inactive",
      "operating_profile_missing",
      "payin_not_allowed",
      "asset_not_configured",
      "wallet_not_ready",
      "provider_not_ready",
    ]);
  });

  it("says allocator_not_ready once the wallet has handed out its last index", () => {
    expect(decidePair(usdt, merchant, wallet(MAX_ADDRESS_INDEX)).reasons).toEqual([]);
    expect(decidePair(usdt, merchant, wallet(MAX_ADDRESS_INDEX + 1)).reasons).toEqual(["allocator_not_ready"]);
  });

  it("treats a deny policy like a missing one", () => {
    expect(decidePair(usdt, { ...merchant, payinPolicyEffect: "deny" }, wallet(3)).reasons).toEqual(["payin_not_allowed"]);
  });
});
