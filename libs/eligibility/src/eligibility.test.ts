import { describe, expect, it } from "vitest";
import { decide, ELIGIBILITY_REASONS, MAX_ADDRESS_INDEX, type EligibilityInputs, type MerchantSide } from "./index.js";

const READY_MERCHANT: MerchantSide = {
  status: "active",
  payinPolicyEffect: "allow",
  operatingMode: "non_custodial",
  ruleEffect: "allow",
  providerConnected: true,
  providerConnectedInJurisdiction: true,
};

const USDT = { asset: "usdt", rail: "bep20" };

/** Inputs of a merchant that may take a USDT pay-in in DE, with `over` changed. */
function inputs(over: Partial<Omit<EligibilityInputs, "merchant">> & { merchant?: Partial<MerchantSide> } = {}): EligibilityInputs {
  return { pair: USDT, jurisdiction: "DE", wallet: { nextIndex: 0 }, observing: true, ...over, merchant: { ...READY_MERCHANT, ...over.merchant } };
}

describe("decide", () => {
  it("finds nothing wrong with a merchant ready in the jurisdiction, in either scope, on both pairs", () => {
    for (const pair of [USDT, { asset: "usdc", rail: "erc20" }]) {
      expect(decide(inputs({ pair }), "operation")).toEqual([]);
      expect(decide(inputs({ pair }), "configuration")).toEqual([]);
    }
  });

  it("lists the contract's seven reasons in its order", () => {
    expect(ELIGIBILITY_REASONS).toEqual([
      "merchant_inactive",
      "operating_profile_missing",
      "payin_not_allowed",
      "asset_not_configured",
      "wallet_not_ready",
      "allocator_not_ready",
      "provider_not_ready",
    ]);
  });

  it("names merchant_inactive for every status but active, an unknown one included", () => {
    for (const status of ["inactive", "suspended", "closed", "unknown", ""]) {
      expect(decide(inputs({ merchant: { status } }), "configuration")).toEqual(["merchant_inactive"]);
    }
  });

  it("names operating_profile_missing without an operating profile", () => {
    expect(decide(inputs({ merchant: { operatingMode: null } }), "configuration")).toEqual(["operating_profile_missing"]);
    expect(decide(inputs({ merchant: { operatingMode: "" } }), "configuration")).toEqual(["operating_profile_missing"]);
  });

  it("names payin_not_allowed unless the merchant's payin policy allows", () => {
    for (const payinPolicyEffect of ["deny", null] as const) {
      expect(decide(inputs({ merchant: { payinPolicyEffect } }), "configuration")).toEqual(["payin_not_allowed"]);
      expect(decide(inputs({ jurisdiction: null, merchant: { payinPolicyEffect } }), "configuration")).toEqual(["payin_not_allowed"]);
    }
  });

  it("names payin_not_allowed in a jurisdiction whose crypto.payin rule denies, or that has none", () => {
    for (const ruleEffect of ["deny", null] as const) {
      expect(decide(inputs({ merchant: { ruleEffect } }), "configuration")).toEqual(["payin_not_allowed"]);
      expect(decide(inputs({ merchant: { ruleEffect } }), "operation")).toEqual(["payin_not_allowed"]);
    }
  });

  it("counts no rule merchant-wide (no jurisdiction asked)", () => {
    expect(decide(inputs({ jurisdiction: null, merchant: { ruleEffect: null } }), "operation")).toEqual([]);
  });

  it("names asset_not_configured for a pair routing does not serve", () => {
    for (const pair of [{ asset: "usdt", rail: "erc20" }, { asset: "usdc", rail: "bep20" }, { asset: "dai", rail: "erc20" }, { asset: "", rail: "" }]) {
      expect(decide(inputs({ pair }), "configuration")).toEqual(["asset_not_configured"]);
    }
  });

  it("names wallet_not_ready without a wallet, and does not judge the wallet when the caller did not read it", () => {
    expect(decide(inputs({ wallet: null }), "configuration")).toEqual(["wallet_not_ready"]);
    expect(decide(inputs({ wallet: undefined }), "configuration")).toEqual([]);
    expect(decide(inputs({ wallet: undefined }), "operation")).toEqual([]);
  });

  it("names allocator_not_ready once the wallet has handed out its last index, not before", () => {
    expect(MAX_ADDRESS_INDEX).toBe(2_147_483_647);
    expect(decide(inputs({ wallet: { nextIndex: MAX_ADDRESS_INDEX } }), "configuration")).toEqual([]);
    expect(decide(inputs({ wallet: { nextIndex: MAX_ADDRESS_INDEX + 1 } }), "configuration")).toEqual(["allocator_not_ready"]);
  });

  it("names provider_not_ready in a jurisdiction where no provider is bound and connected, even if one is elsewhere", () => {
    const elsewhere = { providerConnected: true, providerConnectedInJurisdiction: false };
    expect(decide(inputs({ merchant: elsewhere }), "configuration")).toEqual(["provider_not_ready"]);
    expect(decide(inputs({ merchant: elsewhere }), "operation")).toEqual(["provider_not_ready"]);
  });

  it("merchant-wide, a provider bound and connected in any jurisdiction is enough, and none is not", () => {
    expect(decide(inputs({ jurisdiction: null, merchant: { providerConnected: true, providerConnectedInJurisdiction: false } }), "operation")).toEqual([]);
    expect(decide(inputs({ jurisdiction: null, merchant: { providerConnected: false, providerConnectedInJurisdiction: true } }), "operation")).toEqual([
      "provider_not_ready",
    ]);
  });

  it("counts a rail that is not observed in the operation scope only, where an unknown one is not observed", () => {
    expect(decide(inputs({ observing: false }), "operation")).toEqual(["provider_not_ready"]);
    expect(decide(inputs({ observing: undefined }), "operation")).toEqual(["provider_not_ready"]);
    expect(decide(inputs({ observing: false }), "configuration")).toEqual([]);
    expect(decide(inputs({ observing: undefined }), "configuration")).toEqual([]);
  });

  it("names every failing reason at once, in the contract's order", () => {
    const nothing = inputs({
      pair: { asset: "usdt", rail: "erc20" },
      wallet: null,
      observing: false,
      merchant: { status: "suspended", payinPolicyEffect: null, operatingMode: null, ruleEffect: "deny", providerConnected: false, providerConnectedInJurisdiction: false },
    });
    expect(decide(nothing, "operation")).toEqual([
      "merchant_inactive",
      "operating_profile_missing",
      "payin_not_allowed",
      "asset_not_configured",
      "wallet_not_ready",
      "provider_not_ready",
    ]);
    expect(decide({ ...nothing, wallet: { nextIndex: MAX_ADDRESS_INDEX + 1 } }, "configuration")).toEqual([
      "merchant_inactive",
      "operating_profile_missing",
      "payin_not_allowed",
      "asset_not_configured",
      "allocator_not_ready",
      "provider_not_ready",
    ]);
  });
});
