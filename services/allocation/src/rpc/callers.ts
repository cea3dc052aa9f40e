import { allocationV1 } from "@payin/proto";
import { ALL_METHODS, allowCallers } from "@payin/rpc";

/**
 * Which internal caller may call which allocation RPC: docs/callers.md is generated from
 * this (npm run docs:callers), and a test fails when a caller is let call what its code never calls.
 * A caller not listed may call none.
 */
export const CALLERS = allowCallers(allocationV1.AllocationService, {
  // payins allocates the address of each pay-in it creates (single allocations travel in batches).
  payins: ["batchAllocateAddresses"],
  // The API gateway's admin API: a merchant's wallet and readiness.
  api: ["setWallet", "getWallet", "getReadiness"],
  // The hosted checkout: readiness before a checkout is created and while a payer starts.
  checkout: ["getReadiness"],
  // The operator CLI: wallets, readiness, and the rails' observation (resuming a halted rail).
  payinctl: ["setWallet", "getWallet", "getReadiness", "listRails", "resumeRail"],
  // npm start's demo merchant's receiving wallet.
  stack: ["setWallet"],
  // The test harness and the benchmark only: never given a digest in a deployment.
  test: ALL_METHODS,
});
