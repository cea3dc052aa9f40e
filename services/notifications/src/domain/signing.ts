import { Webhook } from "standardwebhooks";

/**
 * The `webhook-signature` header of Standard Webhooks 1.0: `v1,<base64
 * HMAC-SHA256 of "id.timestamp.body">` for each secret ("whsec_" + base64 of
 * the key), separated by a space: during a rotation an endpoint's current and
 * previous secrets both sign (secrets.ts signingSecrets), and a receiver
 * accepts the message when any one matches.
 */
export function webhookSignature(msgId: string, timestamp: Date, body: string, secrets: readonly string[]): string {
  if (secrets.length === 0) throw new Error("a webhook is signed with at least one secret");
  return secrets.map((secret) => new Webhook(secret).sign(msgId, timestamp, body)).join(" ");
}

/**
 * The headers of one delivery: content type, `webhook-id` (the event id, the
 * same on every attempt), `webhook-timestamp` (the attempt's time in whole
 * seconds) and `webhook-signature`.
 */
export function webhookHeaders(msgId: string, now: Date, body: string, secrets: readonly string[]): Record<string, string> {
  return {
    "content-type": "application/json",
    "webhook-id": msgId,
    "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
    "webhook-signature": webhookSignature(msgId, now, body, secrets),
  };
}
