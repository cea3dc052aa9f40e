import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { webhookHeaders, webhookSignature } from "./signing.js";

/** The published Standard Webhooks test vector. */
const VECTOR = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  msgId: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: new Date(1614265330 * 1000),
  payload: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const OTHER = "whsec_" + Buffer.alloc(32, 7).toString("base64");

afterEach(() => {
  vi.useRealTimers();
});

describe("webhookSignature", () => {
  it("gives the published Standard Webhooks test vector's signature", () => {
    expect(webhookSignature(VECTOR.msgId, VECTOR.timestamp, VECTOR.payload, [VECTOR.secret])).toBe(VECTOR.signature);
  });

  it("is verified by standardwebhooks' Webhook.verify; a changed body, id or timestamp, or another secret, is not", () => {
    vi.useFakeTimers({ now: VECTOR.timestamp.getTime() + 10_000, toFake: ["Date"] });
    const headers = webhookHeaders(VECTOR.msgId, VECTOR.timestamp, VECTOR.payload, [VECTOR.secret]);
    expect(headers).toEqual({
      "content-type": "application/json",
      "webhook-id": VECTOR.msgId,
      "webhook-timestamp": "1614265330",
      "webhook-signature": VECTOR.signature,
    });
    expect(new Webhook(VECTOR.secret).verify(VECTOR.payload, headers)).toEqual({ test: 2432232314 });
    expect(() => new Webhook(VECTOR.secret).verify('{"test": 2432232315}', headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(VECTOR.secret).verify(VECTOR.payload, { ...headers, "webhook-id": "msg_other" })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(VECTOR.secret).verify(VECTOR.payload, { ...headers, "webhook-timestamp": "1614265331" })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(OTHER).verify(VECTOR.payload, headers)).toThrow(WebhookVerificationError);
  });

  it("signs with every secret given (a rotation's two), space-separated in their order; each verifies", () => {
    const header = webhookSignature(VECTOR.msgId, VECTOR.timestamp, VECTOR.payload, [OTHER, VECTOR.secret]);
    expect(header).toBe(`${new Webhook(OTHER).sign(VECTOR.msgId, VECTOR.timestamp, VECTOR.payload)} ${VECTOR.signature}`);
    vi.useFakeTimers({ now: VECTOR.timestamp.getTime(), toFake: ["Date"] });
    const headers = { "webhook-id": VECTOR.msgId, "webhook-timestamp": "1614265330", "webhook-signature": header };
    for (const secret of [OTHER, VECTOR.secret]) expect(new Webhook(secret).verify(VECTOR.payload, headers)).toEqual({ test: 2432232314 });
  });

  it("refuses to sign with no secret", () => {
    expect(() => webhookSignature(VECTOR.msgId, VECTOR.timestamp, VECTOR.payload, [])).toThrow("a webhook is signed with at least one secret");
  });
});

describe("webhookHeaders", () => {
  it("gives the timestamp in whole seconds, rounded down, and signs with that second", () => {
    const at = new Date(1614265330_999);
    const headers = webhookHeaders(VECTOR.msgId, at, VECTOR.payload, [VECTOR.secret]);
    expect(headers["webhook-timestamp"]).toBe("1614265330");
    expect(headers["webhook-signature"]).toBe(VECTOR.signature);
  });
});
