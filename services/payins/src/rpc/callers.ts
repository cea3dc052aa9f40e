import { payinsV1 } from "@payin/proto";
import { ALL_METHODS, allowCallers } from "@payin/rpc";

/**
 * Which internal caller may call which payins RPC: docs/callers.md is generated from
 * this (npm run docs:callers), and a test fails when a caller is let call what its code never calls.
 * A caller not listed may call none.
 */
export const CALLERS = allowCallers(payinsV1.PayinsService, {
  // The API gateway's merchant API (single calls travel in batches).
  api: ["batchCreatePayInIntents", "batchGetPayInIntents", "listPayInIntents", "listPayInTransfers"],
  // The hosted checkout gateway: merchants' checkout pages and the payer's public pages.
  checkout: [
    "createCheckoutSession", "getCheckoutSession", "listCheckoutSessions", "disableCheckoutSession",
    "getCheckoutByToken", "batchGetCheckoutsByToken", "startCheckout", "getPayInIntent", "listPayInIntents", "listPayInTransfers",
  ],
  // allocation's chain observer reports what it saw.
  observer: ["recordObservations"],
  // The operator CLI.
  payinctl: ["createCheckoutSession"],
  // npm start's demo: a checkout link for the demo merchant at every start.
  stack: ["createCheckoutSession"],
  // The test harness and the benchmark only: never given a digest in a deployment.
  test: ALL_METHODS,
});
