import { describe, expect, it } from "vitest";
import { allocationV1 } from "@payin/proto";
import { CALLERS } from "../src/rpc/callers.js";

const procedures = (...methods: string[]) => methods.map((method) => `${allocationV1.AllocationService.typeName}/${method}`).sort();

describe("allocation's callers", () => {
  it("lets payins allocate in batches, the api set and read wallets and read readiness, payinctl set and read wallets, read readiness and see and resume the rails", () => {
    expect([...CALLERS.get("payins")!].sort()).toEqual(procedures("BatchAllocateAddresses"));
    expect([...CALLERS.get("api")!].sort()).toEqual(procedures("SetWallet", "GetWallet", "GetReadiness"));
    expect([...CALLERS.get("payinctl")!].sort()).toEqual(procedures("SetWallet", "GetWallet", "GetReadiness", "ListRails", "ResumeRail"));
    // The rails' halts are the operators' alone: neither gateway nor payins may resume one.
    for (const caller of ["api", "checkout", "payins"]) expect([...CALLERS.get(caller)!].some((p) => /Rail/.test(p))).toBe(false);
    expect(CALLERS.get("allocation")).toBeUndefined();
  });
});
