import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "@payin/events";
import { ApiError } from "@payin/http";
import {
  LISTED_EVENT_TYPES, MAX_GRACE_SECONDS, parseCreateEndpoint, parseDeliveriesQuery, parseEventsQuery, parseResendEvent, parseResendFailed, parseRotateSecret, parseUpdateEndpoint,
} from "./input.js";

const UUID = "01A2008D-7400-7000-8000-00000000000A";

/** The refusal `run` throws: its code and message. */
function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return { code: (error as ApiError).code, message: (error as ApiError).message };
  }
  throw new Error("expected a refusal");
}

describe("webhook endpoint bodies", () => {
  it("take url, event_types and description on create; event_types left out or null is every type", () => {
    expect(parseCreateEndpoint({ url: "https://example.com/hook" })).toEqual({ url: "https://example.com/hook", eventTypes: [], description: "" });
    expect(parseCreateEndpoint({ url: "https://example.com/hook", event_types: null, description: null })).toEqual({ url: "https://example.com/hook", eventTypes: [], description: "" });
    expect(parseCreateEndpoint({ url: "https://e.com", event_types: ["pay_in_intent.paid", "checkout.paid"], description: "Shop" })).toEqual({
      url: "https://e.com",
      eventTypes: ["pay_in_intent.paid", "checkout.paid"],
      description: "Shop",
    });
  });

  it("refuse unknown fields, missing or wrongly typed ones, naming them", () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ url: "https://e.com", secret: "whsec_x" }, "VALIDATION_ERROR", /^unknown field "secret"; allowed: url, event_types, description$/],
      [{ url: "https://e.com", enabled: false }, "VALIDATION_ERROR", /unknown field "enabled"/],
      [{}, "VALIDATION_ERROR", /^url is required$/],
      [{ url: null }, "VALIDATION_ERROR", /^url is required$/],
      [{ url: 42 }, "VALIDATION_ERROR", /^url must be a string$/],
      [{ url: ["https://e.com"] }, "VALIDATION_ERROR", /^url must be a string$/],
      [{ url: "" }, "WEBHOOK_URL_INVALID", /^url must not be empty$/],
      [{ url: `https://e.com/${"a".repeat(2_049 - 14)}` }, "WEBHOOK_URL_INVALID", /at most 2048 characters/],
      [{ url: "https://e.com", event_types: "pay_in_intent.paid" }, "VALIDATION_ERROR", /^event_types must be an array/],
      [{ url: "https://e.com", event_types: {} }, "VALIDATION_ERROR", /^event_types must be an array/],
      [{ url: "https://e.com", event_types: [1] }, "VALIDATION_ERROR", /^event_types\[0\] must be a string$/],
      [{ url: "https://e.com", event_types: [] }, "WEBHOOK_EVENT_TYPES_INVALID", /at least one type; leave it out/],
      [{ url: "https://e.com", event_types: ["pay_in_intent.paid", "nope"] }, "WEBHOOK_EVENT_TYPES_INVALID", /^event_types\[1\] "nope" is not an event type; known types: pay_in_intent.created/],
      [{ url: "https://e.com", event_types: ["Pay_in_intent.paid"] }, "WEBHOOK_EVENT_TYPES_INVALID", /is not an event type/],
      [{ url: "https://e.com", event_types: ["webhook.test"] }, "WEBHOOK_EVENT_TYPES_INVALID", /webhook.test cannot be subscribed to/],
      [{ url: "https://e.com", event_types: ["checkout.paid", "checkout.paid"] }, "WEBHOOK_EVENT_TYPES_INVALID", /names checkout.paid twice/],
      [{ url: "https://e.com", event_types: Array(EVENT_TYPES.length * 100).fill("checkout.paid") }, "WEBHOOK_EVENT_TYPES_INVALID", /at most 12 items/],
      [{ url: "https://e.com", description: 7 }, "VALIDATION_ERROR", /^description must be a string or null$/],
      [{ url: "https://e.com", description: "d".repeat(201) }, "VALIDATION_ERROR", /at most 200 characters/],
      [{ url: "https://e.com", description: "a\nb" }, "VALIDATION_ERROR", /control characters/],
      [{ url: "https://e.com", description: "pay\u202Eyalp" }, "VALIDATION_ERROR", /bidirectional/],
      [{ url: "https://e.com", description: "a\u200Bb" }, "VALIDATION_ERROR", /zero-width/],
    ];
    for (const [body, code, message] of cases) {
      const refused = refusal(() => parseCreateEndpoint(body));
      expect(refused.code, JSON.stringify(body).slice(0, 80)).toBe(code);
      expect(refused.message, JSON.stringify(body).slice(0, 80)).toMatch(message);
    }
    // Characters, not UTF-16 units: 200 emoji are a description of 200 characters.
    expect(parseCreateEndpoint({ url: "https://e.com", description: "😀".repeat(200) }).description).toHaveLength(400);
    expect(parseCreateEndpoint({ url: `https://e.com/${"a".repeat(2_048 - 14)}` }).url).toHaveLength(2_048);
  });

  it("echo no unprintable or long value of a refused type", () => {
    const { message } = refusal(() => parseCreateEndpoint({ url: "https://e.com", event_types: [`\u0007${"x".repeat(500)}`] }));
    expect(message).not.toContain("\u0007");
    expect(message).not.toContain("x".repeat(65));
  });

  it("take on update only the fields given, null resetting event_types to every type and clearing the description", () => {
    expect(parseUpdateEndpoint({ enabled: false })).toEqual({ enabled: false });
    expect(parseUpdateEndpoint({ event_types: null, description: null })).toEqual({ eventTypes: { types: [] }, description: "" });
    expect(parseUpdateEndpoint({ url: "https://e.com/2", event_types: ["checkout.created"], description: "" })).toEqual({
      url: "https://e.com/2",
      eventTypes: { types: ["checkout.created"] },
      description: "",
    });
    for (const [body, message] of [
      [{}, /^name at least one field to change: url, event_types, description, enabled$/],
      [{ url: null }, /url cannot be removed/],
      [{ enabled: "false" }, /^enabled must be true or false$/],
      [{ enabled: null }, /^enabled must be true or false$/],
      [{ enabled: 0 }, /^enabled must be true or false$/],
      [{ event_types: [] }, /at least one type/],
      [{ secret: "x" }, /unknown field "secret"/],
    ] as [Record<string, unknown>, RegExp][]) {
      expect(refusal(() => parseUpdateEndpoint(body)).message, JSON.stringify(body)).toMatch(message);
    }
  });

  it("take a grace period of 0 to 7 days in whole seconds, none by default", () => {
    expect(parseRotateSecret({})).toEqual({});
    expect(parseRotateSecret({ grace_seconds: null })).toEqual({});
    expect(parseRotateSecret({ grace_seconds: 0 })).toEqual({ graceSeconds: 0 });
    expect(parseRotateSecret({ grace_seconds: MAX_GRACE_SECONDS })).toEqual({ graceSeconds: 604_800 });
    for (const value of [-1, MAX_GRACE_SECONDS + 1, 1.5, "60", true, [], 1e300, Number.MAX_SAFE_INTEGER + 2]) {
      expect(refusal(() => parseRotateSecret({ grace_seconds: value })).message, String(value)).toMatch(/^grace_seconds must be a whole number from 0 to 604800/);
    }
    expect(refusal(() => parseRotateSecret({ grace: 5 })).message).toMatch(/unknown field "grace"; allowed: grace_seconds/);
  });

  it("take resend's endpoint_uuid (lower-cased) and resend-failed's since (RFC 3339 in UTC)", () => {
    expect(parseResendEvent({})).toEqual({ endpointUuid: "" });
    expect(parseResendEvent({ endpoint_uuid: UUID })).toEqual({ endpointUuid: UUID.toLowerCase() });
    expect(refusal(() => parseResendEvent({ endpoint_uuid: "x" })).message).toBe("endpoint_uuid must be a uuid");
    expect(refusal(() => parseResendEvent({ endpoint_uuid: 5 })).message).toBe("endpoint_uuid must be a uuid");
    expect(parseResendFailed({ since: "2030-01-02T03:04:05Z" }).since.toISOString()).toBe("2030-01-02T03:04:05.000Z");
    for (const since of ["2030-01-02", "2030-01-02T03:04:05+01:00", "2030-02-30T00:00:00Z", "yesterday", 1_700_000_000, ""]) {
      expect(refusal(() => parseResendFailed({ since })).message, String(since)).toMatch(/^since must be an RFC 3339 date-time in UTC/);
    }
    expect(refusal(() => parseResendFailed({})).message).toBe("since is required");
  });
});

describe("events and deliveries queries", () => {
  it("take after, type (one or a comma-separated list), intent_uuid and limit", () => {
    expect(parseEventsQuery({})).toEqual({ after: "", types: [], limit: 20 });
    expect(parseEventsQuery({ after: UUID, type: "pay_in_intent.paid,checkout.paid,pay_in_intent.paid", intent_uuid: UUID, limit: "100" })).toEqual({
      after: UUID.toLowerCase(),
      types: ["pay_in_intent.paid", "checkout.paid"],
      intentUuid: UUID.toLowerCase(),
      limit: 100,
    });
    expect(parseEventsQuery({ type: LISTED_EVENT_TYPES.join(",") }).types).toEqual(LISTED_EVENT_TYPES);
    for (const [query, message] of [
      [{ after: "1" }, /^after must be an event id/],
      [{ intent_uuid: "x" }, /^intent_uuid must be a uuid$/],
      [{ type: "" }, /without empty items/],
      [{ type: "pay_in_intent.paid," }, /without empty items/],
      [{ type: "pay_in_intent.paid, checkout.paid" }, /" checkout.paid" is not an event type/],
      [{ type: "webhook.test" }, /never listed/],
      [{ type: "pay_in_intent.*" }, /is not an event type/],
      [{ limit: "0" }, /^limit must be a whole number from 1 to 100$/],
      [{ limit: "101" }, /^limit must be a whole number from 1 to 100$/],
      [{ limit: "1e2" }, /^limit must be a whole number from 1 to 100$/],
    ] as [Record<string, string>, RegExp][]) {
      expect(refusal(() => parseEventsQuery(query)).message, JSON.stringify(query)).toMatch(message);
    }
  });

  it("take a delivery status, a before cursor and limit", () => {
    expect(parseDeliveriesQuery({})).toEqual({ status: "", before: "", limit: 20 });
    expect(parseDeliveriesQuery({ status: "failed", before: UUID, limit: "5" })).toEqual({ status: "failed", before: UUID.toLowerCase(), limit: 5 });
    expect(refusal(() => parseDeliveriesQuery({ status: "FAILED" })).message).toBe("status must be one of: pending, succeeded, failed");
    expect(refusal(() => parseDeliveriesQuery({ before: "2030-01-01" })).message).toBe("before must be a delivery uuid");
  });
});
