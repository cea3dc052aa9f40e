import { describe, expect, it } from "vitest";
import { allocationV1 } from "@payin/proto";
import { READINESS_REASON_CODES } from "./readiness-reasons.js";

describe("readiness reasons", () => {
  it("are the contract's enum values, in its order, as the name without READINESS_REASON_ in lower case", () => {
    const fromEnum = allocationV1.file_payin_allocation_v1_allocation_service.enums
      .find((e) => e.name === "ReadinessReason")!
      .values.filter((v) => v.number !== 0)
      .map((v) => v.name.replace(/^READINESS_REASON_/, "").toLowerCase());
    expect(READINESS_REASON_CODES).toEqual(fromEnum);
    // Not vacuous: the enum has the documented values, the first merchant_inactive.
    expect(READINESS_REASON_CODES).toHaveLength(7);
    expect(READINESS_REASON_CODES[0]).toBe("merchant_inactive");
    expect(READINESS_REASON_CODES).toContain("provider_not_ready");
  });
});
