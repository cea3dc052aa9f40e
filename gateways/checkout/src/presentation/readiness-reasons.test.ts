import { create } from "@bufbuild/protobuf";
import { allocationV1 } from "@payin/proto";
import { describe, expect, it } from "vitest";
import { explainReason, isReadinessReasonCode, pairLabel, pairReadinessView, READINESS_REASON_CODES } from "./readiness-reasons.js";

const { ReadinessReason } = allocationV1;

const pair = (init: { asset?: string; rail?: string; ready?: boolean; reasons?: string[]; reasonCodes?: allocationV1.ReadinessReason[] }) =>
  create(allocationV1.PairReadinessSchema, { asset: "usdt", rail: "bep20", ...init });

describe("readiness reasons", () => {
  it("are the contract's seven codes, in its order, each the lower-case name of allocation's enum value", () => {
    expect(READINESS_REASON_CODES).toEqual([
      "merchant_inactive",
      "operating_profile_missing",
      "payin_not_allowed",
      "asset_not_configured",
      "wallet_not_ready",
      "allocator_not_ready",
      "provider_not_ready",
    ]);
    const enumCodes = Object.entries(ReadinessReason)
      .filter(([name, value]) => typeof value === "number" && name !== "UNSPECIFIED")
      .sort(([, a], [, b]) => Number(a) - Number(b))
      .map(([name]) => name.toLowerCase());
    expect(enumCodes).toEqual([...READINESS_REASON_CODES]);
  });

  it("each say in plain words what is wrong and what to ask the platform for, all different", () => {
    const explained = READINESS_REASON_CODES.map(explainReason);
    for (const reason of explained) {
      expect(reason.meaning).toMatch(/^[A-Z].+\.$/);
      expect(reason.ask).toMatch(/^Ask the platform /);
      expect(reason.meaning).not.toContain("_");
    }
    expect(new Set(explained.map((r) => r.meaning)).size).toBe(7);
    expect(new Set(explained.map((r) => r.ask)).size).toBe(7);
    expect(explainReason("wallet_not_ready").ask).toContain("receiving wallet");
    expect(explainReason("merchant_inactive").ask).toContain("activate");
  });

  it("keeps an unknown code, with a general request to quote it", () => {
    expect(isReadinessReasonCode("moon_not_full")).toBe(false);
    expect(explainReason("moon_not_full")).toEqual({ code: "moon_not_full", meaning: expect.any(String), ask: expect.stringContaining("quoting the code") });
  });

  it("names pairs so they cannot be misread", () => {
    expect(pairLabel("usdt", "bep20")).toBe("USDT on BNB Smart Chain (BEP20)");
    expect(pairLabel("usdc", "erc20")).toBe("USDC on Ethereum (ERC20)");
    expect(pairLabel("usdt", "erc20")).toBe("USDT on Ethereum (ERC20)");
    expect(pairLabel("dai", "tron")).toBe("DAI on TRON");
  });

  it("shows a pair ready only when allocation says so and no reason fails", () => {
    const ready = pairReadinessView(pair({ ready: true }));
    expect(ready).toMatchObject({ value: "usdt/bep20", label: "USDT on BNB Smart Chain (BEP20)", ready: true, reasons: [] });
    const failing = pairReadinessView(pair({ asset: "usdc", rail: "erc20", ready: false, reasonCodes: [ReadinessReason.WALLET_NOT_READY] }));
    expect(failing.ready).toBe(false);
    expect(failing.reasons.map((r) => r.code)).toEqual(["wallet_not_ready"]);
    expect(pairReadinessView(pair({ ready: true, reasons: ["provider_not_ready"] })).ready).toBe(false);
    expect(pairReadinessView(pair({ ready: false })).ready).toBe(false);
  });
});
