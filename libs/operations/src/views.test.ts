import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { allocationV1, merchantsV1 } from "@payin/proto";
import { auditEventView, listView, merchantView, readinessView } from "./views.js";

describe("admin views", () => {
  it("a list: the data and the page asked for, with the service's total as a number", () => {
    expect(listView([1, 2], 12n, { limit: 2, offset: 4 })).toEqual({ data: [1, 2], pagination: { total: 12, limit: 2, offset: 4 } });
  });

  it("readiness: each pair's failing reasons by their contract names, the enum's and the strings alike", () => {
    const { ReadinessReason } = allocationV1;
    const pairs = [
      create(allocationV1.PairReadinessSchema, { asset: "usdt", rail: "bep20", ready: false, reasonCodes: [ReadinessReason.MERCHANT_INACTIVE, ReadinessReason.WALLET_NOT_READY] }),
      create(allocationV1.PairReadinessSchema, { asset: "usdc", rail: "erc20", ready: true }),
    ];
    expect(readinessView("m", pairs)).toEqual({
      merchant_uuid: "m",
      pairs: [
        { asset: "usdt", rail: "bep20", ready: false, reasons: ["merchant_inactive", "wallet_not_ready"] },
        { asset: "usdc", rail: "erc20", ready: true, reasons: [] },
      ],
    });
  });

  it("null for what is absent", () => {
    const merchant = create(merchantsV1.MerchantSchema, { uuid: "u", displayName: "Shop", status: merchantsV1.MerchantStatus.ACTIVE });
    expect(merchantView(merchant)).toEqual({ uuid: "u", display_name: "Shop", legal_name: null, status: "active", created_at: null, updated_at: null });
    const event = create(merchantsV1.AuditEventSchema, { eventUuid: "e", action: "rail.resume", targetType: "rail", outcome: "succeeded", actor: { kind: "operator_cli", requestId: "r" } });
    expect(auditEventView(event)).toEqual({
      event_uuid: "e",
      actor: { kind: "operator_cli", uuid: null },
      action: "rail.resume",
      target_type: "rail",
      target_uuid: null,
      outcome: "succeeded",
      error_code: null,
      request_id: "r",
      occurred_at: null,
    });
  });
});
