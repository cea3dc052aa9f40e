import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { uuidv7 } from "@payin/ids";
import { Code } from "@payin/rpc";
import { expectFailure } from "@payin/testing";
import { intentEvent, jobKeys, startNotifications, type Harness } from "./harness.js";

let h: Harness;

beforeAll(async () => {
  h = await startNotifications();
});
afterAll(async () => {
  await h?.close();
});

const URL_OK = "https://hooks.example.com/webhooks";

async function newEndpoint(merchantUuid: string, eventTypes: string[] = []) {
  return (await h.client.createWebhookEndpoint({ merchantUuid, url: URL_OK, eventTypes })).endpoint!.endpointUuid;
}

async function deliveryRow(eventUuid: string, endpointUuid: string) {
  const [row] = await h.rows<{ delivery_uuid: string; status: string; round_attempts: number; attempt_count: number; next_attempt_at: string | null }>(
    `select delivery_uuid, status, round_attempts, attempt_count, next_attempt_at from deliveries where event_uuid = $1 and endpoint_uuid = $2`,
    [eventUuid, endpointUuid],
  );
  return row;
}

/** What the notifier leaves after giving up on a delivery: failed, its attempts counted, no job. */
async function giveUp(deliveryUuid: string, attempts = 8) {
  await h.rows(`update deliveries set status = 'failed', attempt_count = $2, round_attempts = $2, next_attempt_at = null where delivery_uuid = $1`, [deliveryUuid, attempts]);
  await h.rows(`select graphile_worker.remove_job('delivery:' || $1::text)`, [deliveryUuid]);
}

describe("SendTestEvent", () => {
  it("sends a webhook.test event to that endpoint alone; it is never listed among the merchant's events", async () => {
    const m = uuidv7();
    const target = await newEndpoint(m);
    const bystander = await newEndpoint(m);
    const { event } = await h.client.sendTestEvent({ merchantUuid: m, endpointUuid: target });
    expect({ type: event?.type, sequence: event?.sequence, merchantUuid: event?.merchantUuid }).toEqual({ type: "webhook.test", sequence: 1n, merchantUuid: m });
    expect(JSON.parse(event!.dataJson)).toMatchObject({ id: event!.eventUuid, type: "webhook.test", merchant_uuid: m, sequence: 1 });
    expect((await h.client.listEvents({ merchantUuid: m, limit: 100 })).events).toEqual([]);
    await expectFailure(h.client.getEvent({ merchantUuid: m, eventUuid: event!.eventUuid }), Code.NotFound, "EVENT_NOT_FOUND");
    const log = await h.client.listDeliveries({ merchantUuid: m, endpointUuid: target, limit: 10 });
    expect(log.deliveries.map((d) => ({ eventUuid: d.eventUuid, eventType: d.eventType, status: d.status }))).toEqual([
      { eventUuid: event!.eventUuid, eventType: "webhook.test", status: "pending" },
    ]);
    expect(await jobKeys(h)).toContain(`delivery:${log.deliveries[0]!.deliveryUuid}`);
    expect((await h.client.listDeliveries({ merchantUuid: m, endpointUuid: bystander, limit: 10 })).deliveries).toEqual([]);
    expect((await h.client.listDeliveries({ merchantUuid: m, eventUuid: event!.eventUuid, limit: 10 })).deliveries).toHaveLength(1);
  });

  it("refuses a disabled endpoint (WEBHOOK_ENDPOINT_DISABLED)", async () => {
    const m = uuidv7();
    const endpointUuid = await newEndpoint(m);
    await h.client.updateWebhookEndpoint({ merchantUuid: m, endpointUuid, enabled: false });
    await expectFailure(h.client.sendTestEvent({ merchantUuid: m, endpointUuid }), Code.FailedPrecondition, "WEBHOOK_ENDPOINT_DISABLED");
  });
});

describe("ListDeliveries", () => {
  const m = uuidv7();
  let endpointUuid: string;
  let events: ReturnType<typeof intentEvent>[];

  beforeAll(async () => {
    endpointUuid = await newEndpoint(m);
    events = [];
    // One at a time: each delivery is newer than the one before.
    for (let i = 0; i < 3; i++) {
      const event = intentEvent(m, "pay_in_intent.created");
      events.push(event);
      await h.client.recordEvents({ events: [event] });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  });

  it("answers an endpoint's deliveries newest first, a page before a cursor, each with its attempts oldest first", async () => {
    const first = await h.client.listDeliveries({ merchantUuid: m, endpointUuid, limit: 2 });
    expect(first.deliveries.map((d) => d.eventUuid)).toEqual([events[2]!.eventUuid, events[1]!.eventUuid]);
    expect(first.hasMore).toBe(true);
    const rest = await h.client.listDeliveries({ merchantUuid: m, endpointUuid, limit: 2, before: first.deliveries[1]!.deliveryUuid });
    expect(rest.deliveries.map((d) => d.eventUuid)).toEqual([events[0]!.eventUuid]);
    expect(rest.hasMore).toBe(false);
    // Attempts as the notifier records them.
    const deliveryUuid = rest.deliveries[0]!.deliveryUuid;
    const t0 = new Date(Date.now() - 60_000);
    await h.rows(
      `insert into delivery_attempts (attempt_uuid, delivery_uuid, attempted_at, status_code, duration_ms, response_excerpt, error)
       values ($1, $3, $4, 500, 120, 'oops', ''), ($2, $3, $5, 0, 15000, '', 'timeout')`,
      [uuidv7(), uuidv7(), deliveryUuid, t0, new Date(t0.getTime() + 5000)],
    );
    const [delivery] = (await h.client.listDeliveries({ merchantUuid: m, eventUuid: events[0]!.eventUuid, limit: 10 })).deliveries;
    expect(delivery!.attempts.map((a) => ({ statusCode: a.statusCode, durationMs: a.durationMs, responseExcerpt: a.responseExcerpt, error: a.error }))).toEqual([
      { statusCode: 500, durationMs: 120, responseExcerpt: "oops", error: "" },
      { statusCode: 0, durationMs: 15000, responseExcerpt: "", error: "timeout" },
    ]);
    expect(delivery!.nextAttemptAt).toBeDefined();
  });

  it("filters by status", async () => {
    const row = await deliveryRow(events[1]!.eventUuid, endpointUuid);
    await giveUp(row!.delivery_uuid);
    const failed = await h.client.listDeliveries({ merchantUuid: m, endpointUuid, status: "failed", limit: 10 });
    expect(failed.deliveries.map((d) => ({ uuid: d.deliveryUuid, status: d.status, attemptCount: d.attemptCount, next: d.nextAttemptAt }))).toEqual([
      { uuid: row!.delivery_uuid, status: "failed", attemptCount: 8, next: undefined },
    ]);
    expect((await h.client.listDeliveries({ merchantUuid: m, endpointUuid, status: "pending", limit: 10 })).deliveries).toHaveLength(2);
  });

  it("refuses what names no single endpoint or event, or filters by nothing known (INVALID_ARGUMENT); another merchant's are NOT_FOUND", async () => {
    for (const req of [
      { merchantUuid: m, limit: 10 },
      { merchantUuid: m, endpointUuid, eventUuid: events[0]!.eventUuid, limit: 10 },
      { merchantUuid: m, endpointUuid, status: "lost", limit: 10 },
      { merchantUuid: m, endpointUuid, limit: 0 },
      { merchantUuid: m, endpointUuid, limit: 101 },
      { merchantUuid: m, endpointUuid, limit: 10, before: "nope" },
      { merchantUuid: m, endpointUuid, limit: 10, before: uuidv7() },
      { merchantUuid: "nope", endpointUuid, limit: 10 },
    ]) {
      await expectFailure(h.client.listDeliveries(req), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
    const other = uuidv7();
    await expectFailure(h.client.listDeliveries({ merchantUuid: other, endpointUuid, limit: 10 }), Code.NotFound, "WEBHOOK_ENDPOINT_NOT_FOUND");
    await expectFailure(h.client.listDeliveries({ merchantUuid: other, eventUuid: events[0]!.eventUuid, limit: 10 }), Code.NotFound, "EVENT_NOT_FOUND");
  });
});

describe("ResendEvent and ResendFailedDeliveries", () => {
  it("sets a delivery pending again, due now, its round started afresh, with its job; the webhook-id (event) stays", async () => {
    const m = uuidv7();
    const endpointUuid = await newEndpoint(m);
    const event = intentEvent(m, "pay_in_intent.paid");
    await h.client.recordEvents({ events: [event] });
    const before = (await deliveryRow(event.eventUuid, endpointUuid))!;
    await giveUp(before.delivery_uuid);
    expect(await jobKeys(h)).not.toContain(`delivery:${before.delivery_uuid}`);
    const { deliveries } = await h.client.resendEvent({ merchantUuid: m, eventUuid: event.eventUuid, endpointUuid });
    expect(deliveries.map((d) => ({ uuid: d.deliveryUuid, event: d.eventUuid, status: d.status, attemptCount: d.attemptCount }))).toEqual([
      { uuid: before.delivery_uuid, event: event.eventUuid, status: "pending", attemptCount: 8 },
    ]);
    const after = (await deliveryRow(event.eventUuid, endpointUuid))!;
    expect({ status: after.status, round: after.round_attempts }).toEqual({ status: "pending", round: 0 });
    expect(Math.abs(new Date(after.next_attempt_at!).getTime() - Date.now())).toBeLessThan(10_000);
    expect(await jobKeys(h)).toContain(`delivery:${before.delivery_uuid}`);
    // Resending a pending one again replaces its job rather than adding one.
    const jobs = (await jobKeys(h)).length;
    await h.client.resendEvent({ merchantUuid: m, eventUuid: event.eventUuid, endpointUuid });
    expect((await jobKeys(h)).length).toBe(jobs);
  });

  it("without an endpoint: every enabled endpoint with a delivery of it or subscribing to its type, making the missing deliveries", async () => {
    const m = uuidv7();
    const early = await newEndpoint(m);
    const disabled = await newEndpoint(m);
    const event = intentEvent(m, "pay_in_intent.created");
    await h.client.recordEvents({ events: [event] });
    const late = await newEndpoint(m);
    const notSubscribed = await newEndpoint(m, ["checkout.paid"]);
    await h.client.updateWebhookEndpoint({ merchantUuid: m, endpointUuid: disabled, enabled: false });
    const disabledDelivery = (await deliveryRow(event.eventUuid, disabled))!;
    await giveUp(disabledDelivery.delivery_uuid);
    const { deliveries } = await h.client.resendEvent({ merchantUuid: m, eventUuid: event.eventUuid });
    expect(deliveries.map((d) => d.endpointUuid).sort()).toEqual([early, late].sort());
    expect((await deliveryRow(event.eventUuid, disabled))!.status).toBe("failed");
    expect(await deliveryRow(event.eventUuid, notSubscribed)).toBeUndefined();
    // Named, a disabled endpoint is refused; another merchant's event is not found.
    await expectFailure(h.client.resendEvent({ merchantUuid: m, eventUuid: event.eventUuid, endpointUuid: disabled }), Code.FailedPrecondition, "WEBHOOK_ENDPOINT_DISABLED");
    await expectFailure(h.client.resendEvent({ merchantUuid: uuidv7(), eventUuid: event.eventUuid }), Code.NotFound, "EVENT_NOT_FOUND");
    await expectFailure(h.client.resendEvent({ merchantUuid: m, eventUuid: "nope" }), Code.NotFound, "EVENT_NOT_FOUND");
  });

  it("resends an endpoint's failed deliveries (given up, or waiting for a retry) of events created since a time", async () => {
    const m = uuidv7();
    const endpointUuid = await newEndpoint(m);
    const since = new Date(Date.now() - 3600_000);
    const old = intentEvent(m, "pay_in_intent.created", { createdAt: new Date(since.getTime() - 60_000) });
    const givenUp = intentEvent(m, "pay_in_intent.created");
    const retrying = intentEvent(m, "pay_in_intent.created");
    const fresh = intentEvent(m, "pay_in_intent.created");
    const done = intentEvent(m, "pay_in_intent.created");
    await h.client.recordEvents({ events: [old, givenUp, retrying, fresh, done] });
    const uuidOf = async (e: { eventUuid: string }) => (await deliveryRow(e.eventUuid, endpointUuid))!.delivery_uuid;
    await giveUp(await uuidOf(old));
    await giveUp(await uuidOf(givenUp));
    await h.rows(`update deliveries set attempt_count = 2, round_attempts = 2, next_attempt_at = now() + interval '5 minutes' where delivery_uuid = $1`, [await uuidOf(retrying)]);
    await h.rows(`update deliveries set status = 'succeeded', attempt_count = 1, round_attempts = 1, next_attempt_at = null where delivery_uuid = $1`, [await uuidOf(done)]);
    const { resent } = await h.client.resendFailedDeliveries({ merchantUuid: m, endpointUuid, since: timestampFromDate(since) });
    expect(resent).toBe(2);
    const status = async (e: { eventUuid: string }) => {
      const row = (await deliveryRow(e.eventUuid, endpointUuid))!;
      return `${row.status}/${row.round_attempts}`;
    };
    expect([await status(old), await status(givenUp), await status(retrying), await status(fresh), await status(done)]).toEqual([
      "failed/8",
      "pending/0",
      "pending/0",
      "pending/0",
      "succeeded/1",
    ]);
    expect(await jobKeys(h)).toContain(`delivery:${await uuidOf(givenUp)}`);
    await expectFailure(h.client.resendFailedDeliveries({ merchantUuid: m, endpointUuid }), Code.InvalidArgument, "INVALID_ARGUMENT");
  });
});
