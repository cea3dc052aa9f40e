import { describe, expect, it } from "vitest";
import { DomainError } from "@payin/errors";
import { checkEventInput, plannedDeliveries, subscribes, type EventInput } from "./events.js";
import type { StoredEvent, WebhookEndpoint } from "./model.js";

const M = "0194f000-0000-7000-8000-00000000000a";
const OTHER = "0194f000-0000-7000-8000-00000000000b";
const AT = new Date("2026-11-27T12:00:00Z");

const input = (change: Partial<EventInput> = {}): EventInput => ({
  eventUuid: "0194f000-0000-7000-8000-000000000001",
  merchantUuid: M,
  type: "pay_in_intent.paid",
  createdAt: AT,
  sequence: 3n,
  intentUuid: "0194f000-0000-7000-8000-000000000002",
  dataJson: '{"id":"x"}',
  ...change,
});

function endpoint(uuid: string, change: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return {
    endpointUuid: uuid,
    merchantUuid: M,
    url: "https://hooks.example.com/",
    description: "",
    eventTypes: [],
    enabled: true,
    disabledReason: null,
    disabledAt: null,
    failingSince: null,
    previousSecretExpiresAt: null,
    createdAt: AT,
    updatedAt: AT,
    ...change,
  };
}

const reasonOf = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return error instanceof DomainError ? `${error.reason}: ${error.message}` : String(error);
  }
  return "accepted";
};

describe("checkEventInput", () => {
  it("keeps a well-formed event as it came, data verbatim", () => {
    expect(checkEventInput(input({ checkoutUuid: "" }), 0, AT)).toEqual({
      eventUuid: "0194f000-0000-7000-8000-000000000001",
      merchantUuid: M,
      type: "pay_in_intent.paid",
      sequence: 3,
      intentUuid: "0194f000-0000-7000-8000-000000000002",
      checkoutUuid: null,
      createdAt: AT,
      recordedAt: AT,
      data: '{"id":"x"}',
      test: false,
    });
  });

  it("refuses what is malformed, naming the event's index", () => {
    expect(reasonOf(() => checkEventInput(input({ type: "webhook.test" }), 4, AT))).toMatch(/^EVENT_INVALID: events\[4\]: type "webhook.test"/);
    expect(reasonOf(() => checkEventInput(input({ sequence: 0n }), 0, AT))).toMatch(/sequence/);
    expect(reasonOf(() => checkEventInput(input({ sequence: 2n ** 60n }), 0, AT))).toMatch(/sequence/);
    expect(reasonOf(() => checkEventInput(input({ intentUuid: undefined }), 0, AT))).toMatch(/intent_uuid is required/);
    expect(reasonOf(() => checkEventInput(input({ type: "checkout.paid" }), 0, AT))).toMatch(/checkout_uuid is required/);
    expect(reasonOf(() => checkEventInput(input({ createdAt: new Date(Number.NaN) }), 0, AT))).toMatch(/created_at/);
    expect(reasonOf(() => checkEventInput(input({ dataJson: '"text"' }), 0, AT))).toMatch(/JSON object/);
    expect(reasonOf(() => checkEventInput(input({ type: "x\u0000\u202e".repeat(40) }), 0, AT))).not.toMatch(/[\u0000\u202e]/);
  });
});

describe("plannedDeliveries", () => {
  const event = (type: string, merchantUuid = M, test = false): StoredEvent => ({
    eventUuid: `0194f000-0000-7000-8000-0000000001${type.length.toString().padStart(2, "0")}`,
    merchantUuid,
    type,
    sequence: 1,
    intentUuid: null,
    checkoutUuid: null,
    createdAt: AT,
    recordedAt: AT,
    data: "{}",
    test,
  });

  it("gives each event one delivery per enabled endpoint of its merchant subscribing to its type, due now", () => {
    let n = 0;
    const newUuid = () => `d${++n}`;
    const endpoints = [
      endpoint("all"),
      endpoint("paid", { eventTypes: ["pay_in_intent.paid"] }),
      endpoint("off", { enabled: false }),
      endpoint("other", { merchantUuid: OTHER }),
    ];
    const planned = plannedDeliveries([event("pay_in_intent.paid"), event("checkout.created"), event("webhook.test", M, true)], endpoints, AT, newUuid);
    expect(planned.map((d) => `${d.eventType}>${d.endpointUuid}`)).toEqual(["pay_in_intent.paid>all", "pay_in_intent.paid>paid", "checkout.created>all"]);
    expect(planned.every((d) => d.nextAttemptAt === AT && d.createdAt === AT && d.merchantUuid === M)).toBe(true);
    expect(new Set(planned.map((d) => d.deliveryUuid)).size).toBe(3);
  });

  it("never subscribes an endpoint to the test event, whatever its types", () => {
    expect(subscribes({ eventTypes: [] }, "webhook.test")).toBe(false);
    expect(subscribes({ eventTypes: ["webhook.test"] }, "webhook.test")).toBe(false);
    expect(subscribes({ eventTypes: [] }, "checkout.paid")).toBe(true);
    expect(subscribes({ eventTypes: ["checkout.paid"] }, "checkout.disabled")).toBe(false);
  });
});
