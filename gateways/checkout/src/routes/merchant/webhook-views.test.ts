import { describe, expect, it } from "vitest";
import type { notificationsV1 } from "@payin/proto";
import { toTimestamp } from "@payin/rpc";
import { endpointView, eventTypesOf, fieldOfRefusal, parseSince, readEndpointForm, sentence, SUBSCRIBABLE_TYPES, typeOptions } from "./webhook-views.js";

const form = (fields: [string, string][]) => new URLSearchParams(fields);
const NOW = new Date("2026-11-27T12:00:00Z");

describe("the endpoint form", () => {
  it("takes a URL, the chosen types in the catalogue's order, and a description, trimmed", () => {
    const { values, errors } = readEndpointForm(
      form([["url", " https://example.com/hook "], ["scope", "some"], ["event_type", "checkout.paid"], ["event_type", "pay_in_intent.paid"], ["event_type", "checkout.paid"], ["description", " ERP "]]),
      { withEnabled: false },
    );
    expect(errors).toEqual({});
    expect(values).toMatchObject({ url: "https://example.com/hook", description: "ERP", scope: "some" });
    expect(eventTypesOf(values)).toEqual(["pay_in_intent.paid", "checkout.paid"]);
  });

  it("sends no types (every type) when every event is chosen, whatever is ticked", () => {
    const { values } = readEndpointForm(form([["url", "https://example.com/"], ["event_type", "checkout.paid"]]), { withEnabled: false });
    expect(values.scope).toBe("all");
    expect(eventTypesOf(values)).toEqual([]);
  });

  it("names each field's problem", () => {
    const cases: [[string, string][], string, RegExp][] = [
      [[], "url", /Enter the address of your receiver/],
      [[["url", "example.com/hook"]], "url", /Enter a full web address/],
      [[["url", "javascript:alert(1)"]], "url", /Enter a full web address/],
      [[["url", `https://example.com/${"a".repeat(2_048)}`]], "url", /at most 2048 characters/],
      [[["url", "https://example.com/"], ["scope", "some"]], "types", /Tick at least one/],
      [[["url", "https://example.com/"], ["scope", "some"], ["event_type", "webhook.test"]], "types", /Choose among the event types offered/],
      [[["url", "https://example.com/"], ["event_type", "pay_in_intent.Paid"]], "types", /Choose among/],
      [[["url", "https://example.com/"], ["description", "x".repeat(201)]], "description", /at most 200 characters/],
      [[["url", "https://example.com/"], ["description", "Refund \u202Eredro"]], "description", /invisible or text-direction/],
    ];
    for (const [fields, field, message] of cases) {
      const { errors } = readEndpointForm(form(fields), { withEnabled: false });
      expect(Object.keys(errors), JSON.stringify(fields).slice(0, 80)).toEqual([field]);
      expect(errors[field as keyof typeof errors]).toMatch(message);
    }
  });

  it("needs an explicit enabled or disabled on the edit form", () => {
    expect(readEndpointForm(form([["url", "https://example.com/"], ["enabled", "false"]]), { withEnabled: true })).toMatchObject({ values: { enabled: false }, errors: {} });
    expect(readEndpointForm(form([["url", "https://example.com/"]]), { withEnabled: true }).errors.enabled).toMatch(/Choose whether/);
  });

  it("offers every type of the catalogue but webhook.test", () => {
    expect(SUBSCRIBABLE_TYPES).not.toContain("webhook.test");
    expect(SUBSCRIBABLE_TYPES).toContain("pay_in_intent.transfer_flagged");
    const options = typeOptions(["checkout.paid"]);
    expect(options.map((o) => o.value)).toEqual(SUBSCRIBABLE_TYPES);
    expect(options.find((o) => o.value === "checkout.paid")).toMatchObject({ id: "type-checkout-paid", checked: true });
    expect(new Set(options.map((o) => o.id)).size).toBe(options.length);
  });
});

describe("the notifications service's refusals on the form", () => {
  it("belong to the field the reason or the message names, or to the whole form", () => {
    expect(fieldOfRefusal("WEBHOOK_URL_INVALID", "url: the host x resolves to a refused address")).toBe("url");
    expect(fieldOfRefusal("WEBHOOK_EVENT_TYPES_INVALID", "event_types names checkout.paid twice")).toBe("types");
    expect(fieldOfRefusal("INVALID_ARGUMENT", "description must be at most 200 characters")).toBe("description");
    expect(fieldOfRefusal("INVALID_ARGUMENT", "merchant_uuid must be a lower-case uuid")).toBeNull();
    expect(sentence("the URL must use https")).toBe("The URL must use https.");
    expect(sentence("Done.")).toBe("Done.");
  });
});

describe("an endpoint as the pages show it", () => {
  const base = { endpointUuid: "e", merchantUuid: "m", url: "https://example.com/", eventTypes: [], description: "", enabled: true, disabledReason: "" } as unknown as notificationsV1.WebhookEndpoint;

  it("says why the platform disabled it, and when", () => {
    const gone = endpointView({ ...base, enabled: false, disabledReason: "gone", disabledAt: toTimestamp(new Date("2026-11-26T10:00:00Z")) }, NOW);
    expect(gone.disabledBy).toMatchObject({ code: "gone" });
    expect(gone.disabledBy!.text).toContain("410 Gone");
    expect(gone.disabledAt?.text).toBe("2026-11-26 10:00 UTC");
    expect(endpointView({ ...base, enabled: false, disabledReason: "failing" }, NOW).disabledBy!.text).toContain("5 days");
    expect(endpointView({ ...base, enabled: false }, NOW).disabledBy).toBeNull();
    expect(endpointView({ ...base, disabledReason: "gone" }, NOW).disabledBy).toBeNull();
  });

  it("shows the previous secret's end of signing only while it is ahead", () => {
    const ahead = endpointView({ ...base, previousSecretExpiresAt: toTimestamp(new Date("2026-11-28T12:00:00Z")) }, NOW);
    expect(ahead.previousSecretExpiresAt?.text).toBe("2026-11-28 12:00 UTC");
    expect(endpointView({ ...base, previousSecretExpiresAt: toTimestamp(new Date("2026-11-27T11:00:00Z")) }, NOW).previousSecretExpiresAt).toBeNull();
  });
});

describe("the time of resend failed since", () => {
  it("reads a datetime-local value as UTC, to the minute or the second", () => {
    expect(parseSince("2026-11-27T09:30", NOW)?.toISOString()).toBe("2026-11-27T09:30:00.000Z");
    expect(parseSince(" 2026-11-27 09:30:15 ", NOW)?.toISOString()).toBe("2026-11-27T09:30:15.000Z");
  });

  it("refuses what is not a real date and time, or lies in the future", () => {
    for (const raw of ["", "yesterday", "2026-02-30T10:00", "2026-11-27T24:00", "2026-11-27T09:60", "2026-11-27T12:01", "27.11.2026 09:30", "2026-11-27T09:30Z"]) {
      expect(parseSince(raw, NOW), raw).toBeNull();
    }
  });
});
