import { notificationsV1 } from "@payin/proto";
import { ALL_METHODS, allowCallers } from "@payin/rpc";

/** What a merchant's people see and do of their events and webhooks (the API's routes, the checkout's merchant area). */
const MERCHANT_FACING = [
  "listEvents",
  "getEvent",
  "createWebhookEndpoint",
  "listWebhookEndpoints",
  "getWebhookEndpoint",
  "updateWebhookEndpoint",
  "deleteWebhookEndpoint",
  "rotateWebhookSecret",
  "sendTestEvent",
  "listDeliveries",
  "resendEvent",
  "resendFailedDeliveries",
] as const;

/**
 * Which internal caller may call which notifications RPC: docs/callers.md is generated from
 * this (npm run docs:callers), and a test fails when a caller is let call what its code never calls.
 * A caller not listed may call none.
 */
export const CALLERS = allowCallers(notificationsV1.NotificationsService, {
  // payins' event outbox relay hands over the events born in its changes.
  payins: ["recordEvents"],
  // The API gateway: the events API and webhook endpoints.
  api: [...MERCHANT_FACING],
  // The hosted checkout's merchant area: the same for signed-in members, but for the events list (it shows
  // events from the delivery log).
  checkout: MERCHANT_FACING.filter((method) => method !== "listEvents"),
  // The test harness and the benchmark only: never given a digest in a deployment.
  test: ALL_METHODS,
});
