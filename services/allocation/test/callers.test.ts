import { describe, expect, it } from "vitest";
import { allocationV1 } from "@payin/proto";
import { CALLERS } from "../src/rpc/callers.js";

const procedures = (...methods: string[]) => methods.map((method) => `${allocationV1.AllocationService.typeName}/${method}`).sort();

describe("allocation's callers", () => {
  it("lets payins allocate in batches, the api set and read wallets and read readiness, payinctl set and read wallets and read readiness", () => {
    expect([...CALLERS.get("payins")!].sort()).toEqual(procedures("BatchAllocateAddresses"));
    expect([...CALLERS.get("api")!].sort()).toEqual(procedures("SetWallet", "GetWallet", "GetReadiness"));
    expect([...CALLERS.get("payinctl")!].sort()).toEqual(procedures("SetWallet", "GetWallet", "GetReadiness"));
    expect(CALLERS.get("allocation")).toBeUndefined();
  });
});
