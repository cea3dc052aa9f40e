import { describe, expect, it } from "vitest";
import { allocationV1 } from "@payin/proto";
import { MAX_ADDRESS_INDEX, READINESS_REASONS, decidePair, type MerchantReadinessInputs } from "./readiness.js";
import type { Wallet } from "./wallet.js";

const merchant: MerchantReadinessInputs = { status: "active", payinPolicyEffect: "allow", operatingMode: "hybrid", providerConnected: true };
const wallet = (nextIndex: number): Wallet => ({ merchantUuid: "m", xpub: "xpub", nextIndex, createdAt: new Date(0), updatedAt: new Date(0) });
const usdt = { asset: "usdt", rail: "bep20" };

describe("decidePair", () => {
  it("keeps the contract's order of reasons: ReadinessReason's values without READINESS_REASON_, in lower case", () => {
    const contract = allocationV1.file_payin_allocation_v1_allocation_service.enums.find((e) => e.name === "ReadinessReason")!;
    const fromEnum = contract.values.filter((v) => v.number !== 0).map((v) => v.name.replace(/^READINESS_REASON_/, "").toLowerCase());
    expect(READINESS_REASONS).toEqual(fromEnum);
    expect(READINESS_REASONS[0]).toBe("merchant_inactive");
  });

  it("is ready with nothing failing", () => {
    expect(decidePair(usdt, merchant, wallet(0))).toEqual({ ...usdt, ready: true, reasons: [] });
  });

  it("names every failing part, the merchant's and the platform's", () => {
    const none: MerchantReadinessInputs = { status: "closed", payinPolicyEffect: null, operatingMode: null, providerConnected: false };
    // Every reason but allocator_not_ready: with no wallet there is no index to run out of.
    expect(decidePair({ asset: "usdc", rail: "bep20" }, none, null).reasons).toEqual(READINESS_REASONS.filter((r) => r !== "allocator_not_ready"));
  });

  it("says allocator_not_ready once the wallet has handed out its last index", () => {
    expect(decidePair(usdt, merchant, wallet(MAX_ADDRESS_INDEX)).reasons).toEqual([]);
    expect(decidePair(usdt, merchant, wallet(MAX_ADDRESS_INDEX + 1)).reasons).toEqual(["allocator_not_ready"]);
  });

  it("treats a deny policy like a missing one", () => {
    expect(decidePair(usdt, { ...merchant, payinPolicyEffect: "deny" }, wallet(3)).reasons).toEqual(["payin_not_allowed"]);
  });
});
