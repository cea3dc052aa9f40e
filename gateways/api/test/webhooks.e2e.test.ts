/**
 * Events and webhook endpoints over the API, end to end on the real platform
 * (docs/webhooks.md): the events a pay-in's changes make appear in the events
 * API oldest first, in per-intent sequence, paged by cursor and filtered by
 * type and intent, with exactly the pay-in reads' 401/403/404; webhook
 * endpoints are managed by a person holding webhook.manage (or a platform
 * admin), never by a machine credential; the secret is shown once, rotation
 * answers a new one, a test event is delivered; hostile input on every new
 * route is a clear 4xx that writes nothing. The chain is played by the test
 * (payins' RecordObservations as the `test` caller), as in pay-in-transfers.
 */
import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Client } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { payinsV1 } from "@payin/proto";
import { createServiceClient, toTimestamp } from "@payin/rpc";
import { awaitFreshTotpStep, totpCodeAt } from "@payin/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ApiResponse,
  bootstrapAdmin,
  createBody,
  expectError,
  expectKeys,
  expectSecretsAbsentFromLogs,
  ISO_UTC,
  type TestMerchant,
  unknownMachineToken,
  usePlatform,
  UUID,
} from "./support.js";

const { TransferState } = payinsV1;

const EVENT_BASE_KEYS = ["created_at", "id", "merchant_uuid", "sequence", "type", "version"];
const ENDPOINT_KEYS = [
  "created_at", "description", "disabled_at", "disabled_reason", "enabled", "endpoint_uuid", "event_types", "failing_since", "merchant_uuid",
  "previous_secret_expires_at", "updated_at", "url",
];
const DELIVERY_KEYS = ["attempt_count", "attempts", "created_at", "delivery_uuid", "endpoint_uuid", "event_id", "event_type", "next_attempt_at", "status", "updated_at"];
const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const UNKNOWN_UUID = "01a2008d-7400-7000-8000-0000000000ff";
const BSC = 56;
const SENDER = `0x${"ab".repeat(20)}`;

const e2e = usePlatform();
let a: TestMerchant;
let b: TestMerchant;
/** Bearer sessions: a merchant_admin member of A (webhook.manage), a merchant_member of A, a merchant_admin of B, the platform admin (MFA done). */
let adminOfA = "";
let memberOfA = "";
let adminOfB = "";
let platformAdmin = "";
/** A cookie session of a merchant_admin of A, with its CSRF token. */
let cookieOfA = { cookie: "", csrf: "" };
let payins: Client<typeof payinsV1.PayinsService>;
/** Every signing secret answered, for the log check. */
const secrets: string[] = [];

/** A local webhook receiver: every request it got, answered with `status`. */
const received: { headers: http.IncomingHttpHeaders; body: string; path: string }[] = [];
let receiver: http.Server;
let receiverUrl = "";

let ipCounter = 1;
async function signIn(email: string, password: string, options: { totpSecret?: string; transport?: "bearer" | "cookie" } = {}) {
  const clientIp = `10.8.0.${ipCounter++}`;
  const res = await e2e.operator.identity.login({ email, password, transport: options.transport ?? "bearer", clientIp });
  if (res.result.case === "authenticated") return res.result.value;
  expect(res.result.case).toBe("mfaChallengeToken");
  const done = await e2e.operator.identity.completeMfa({ mfaChallengeToken: res.result.value as string, code: totpCodeAt(options.totpSecret!), clientIp });
  return done.authenticated!;
}

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), path: req.url ?? "" });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  payins = createServiceClient(payinsV1.PayinsService, { baseUrl: e2e.platform.serviceUrls.payins!, serviceToken: e2e.platform.serviceToken, timeoutMs: 15_000 });
  [a, b] = await Promise.all([e2e.operator.merchant({ name: "Webhook Shop A" }), e2e.operator.merchant({ name: "Webhook Shop B" })]);
  const admin = await bootstrapAdmin(e2e.operator);
  await awaitFreshTotpStep();
  platformAdmin = (await signIn(admin.email, admin.password, { totpSecret: admin.totpSecret })).sessionToken;
  const person = async (merchantUuid: string, role: "merchant_admin" | "merchant_member") => {
    const email = `w-${randomBytes(5).toString("hex")}@example.com`;
    const password = `pw-${randomBytes(12).toString("base64url")}`;
    const res = await e2e.operator.identity.createIdentity({ caller: { sessionToken: platformAdmin }, email, password, roles: [role] });
    await e2e.operator.merchants.ensureMember({ merchantUuid, identityUuid: res.identity!.uuid });
    return { email, password };
  };
  const adminA = await person(a.uuid, "merchant_admin");
  adminOfA = (await signIn(adminA.email, adminA.password)).sessionToken;
  const cookie = await signIn(adminA.email, adminA.password, { transport: "cookie" });
  cookieOfA = { cookie: cookie.sessionToken, csrf: cookie.session!.csrfToken };
  const memberA = await person(a.uuid, "merchant_member");
  memberOfA = (await signIn(memberA.email, memberA.password)).sessionToken;
  const adminB = await person(b.uuid, "merchant_admin");
  adminOfB = (await signIn(adminB.email, adminB.password)).sessionToken;
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
});

const eventsPath = (merchantUuid: string, query = "") => `/api/v1/merchants/${merchantUuid}/events${query}`;
const endpointsPath = (merchantUuid: string, rest = "") => `/api/v1/merchants/${merchantUuid}/webhook-endpoints${rest}`;

function get(path: string, token?: string): Promise<ApiResponse> {
  return e2e.api.request("GET", path, { token });
}

/** Resolves with `probe`'s value once `done` holds of it, asking every 100 ms for up to `timeoutMs`. */
async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}: last ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every event of an intent, through the API (all pages). */
async function intentEvents(intentUuid: string, token = a.token): Promise<any[]> {
  const out: any[] = [];
  let after = "";
  for (;;) {
    const res = await get(eventsPath(a.uuid, `?intent_uuid=${intentUuid}&limit=100${after ? `&after=${after}` : ""}`), token);
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.data);
    if (!res.body.has_more) return out;
    after = res.body.next_after;
  }
}

type Observation = MessageInitShape<typeof payinsV1.ObservationSchema>;
const newHash = () => `0x${randomBytes(32).toString("hex")}`;

function armed(intentUuid: string): Observation {
  return { intentUuid, event: { case: "armed", value: { rail: "bep20", chainId: BigInt(BSC), fromBlock: 100n } } };
}

function transfer(intentUuid: string, to: string, t: { txHash: string; amountBaseUnits: string; state: payinsV1.TransferState; version: number; blockTime: Date }): Observation {
  return {
    intentUuid,
    event: {
      case: "transfer",
      value: {
        rail: "bep20",
        chainId: BigInt(BSC),
        txHash: t.txHash,
        logIndex: 0,
        asset: "usdt",
        decimals: 18,
        amountBaseUnits: t.amountBaseUnits,
        fromAddress: SENDER,
        toAddress: to.toLowerCase(),
        blockNumber: 123n,
        blockHash: `0x${"cd".repeat(32)}`,
        blockTime: toTimestamp(t.blockTime),
        state: t.state,
        version: t.version,
        dust: false,
      },
    },
  };
}

async function record(...observations: Observation[]): Promise<void> {
  const res = await payins.recordObservations({ observations });
  for (const state of res.intents) expect(state.known).toBe(true);
}

/** An intent of A paid in full: created → awaiting_payment → transfer_detected → transfer_settled → paid. */
async function paidIntent(): Promise<{ intentUuid: string; address: string }> {
  const created = await e2e.api.create(a.uuid, a.token, createBody({ asset: "usdt", amount: "12.5" }));
  expect(created.status, created.text).toBe(201);
  const { intent_uuid: intentUuid, address } = created.body;
  await record(armed(intentUuid));
  const seen = { txHash: newHash(), amountBaseUnits: "12500000000000000000", blockTime: new Date(Math.floor(Date.now() / 1000 - 60) * 1000) };
  await record(transfer(intentUuid, address, { ...seen, state: TransferState.PENDING, version: 1 }));
  await record(transfer(intentUuid, address, { ...seen, state: TransferState.SETTLED, version: 2 }));
  return { intentUuid, address };
}

const FULL_PAYMENT = ["pay_in_intent.created", "pay_in_intent.awaiting_payment", "pay_in_intent.transfer_detected", "pay_in_intent.transfer_settled", "pay_in_intent.paid"];

describe("events API", () => {
  let intentUuid = "";
  let events: any[] = [];

  beforeAll(async () => {
    ({ intentUuid } = await paidIntent());
    events = await eventually(() => intentEvents(intentUuid), (list) => list.length >= FULL_PAYMENT.length, "the full payment's events");
  }, 60_000);

  it("lists an intent's events oldest first, in its sequence from 1, each the resource as it stood then", async () => {
    expect(events.map((e) => e.type)).toEqual(FULL_PAYMENT);
    expect(events.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5]);
    for (const event of events) {
      expect(event.id).toMatch(UUID);
      expect(event.created_at).toMatch(ISO_UTC);
      expect(event).toMatchObject({ merchant_uuid: a.uuid, version: 1 });
      expect(event.pay_in_intent.intent_uuid).toBe(intentUuid);
    }
    // The settling transfer paid the intent in the same change: both its events show the intent paid.
    expect(events.map((e) => e.pay_in_intent.status)).toEqual(["created", "awaiting_payment", "awaiting_payment", "paid", "paid"]);
    expect(events.map((e) => e.transfer?.state)).toEqual([undefined, undefined, "pending", "settled", "settled"]);
    expectKeys(events[0], [...EVENT_BASE_KEYS, "pay_in_intent"]);
    expectKeys(events[4], [...EVENT_BASE_KEYS, "pay_in_intent", "transfer"]);
    // The paid event holds the intent exactly as the read shows it now.
    expect(events[4].pay_in_intent).toEqual((await e2e.api.read(a.uuid, a.token, intentUuid)).body);
    // Ids are UUIDv7: their order is the listing's.
    expect([...events.map((e) => e.id)].sort()).toEqual(events.map((e) => e.id));
  });

  it("reads one event as the listing shows it", async () => {
    for (const event of events) {
      const res = await get(eventsPath(a.uuid, `/${event.id}`), a.token);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual(event);
    }
    // A member of the merchant reads it too, and an upper-case id is the same id.
    expect((await get(eventsPath(a.uuid, `/${events[0].id.toUpperCase()}`), memberOfA)).body).toEqual(events[0]);
  });

  it("pages by cursor: next_after continues, and later answers only what came after", async () => {
    const pages: any[][] = [];
    let after = "";
    for (;;) {
      const res = await get(eventsPath(a.uuid, `?intent_uuid=${intentUuid}&limit=2${after ? `&after=${after}` : ""}`), a.token);
      expect(res.status, res.text).toBe(200);
      expectKeys(res.body, ["data", "has_more", "next_after"]);
      pages.push(res.body.data);
      expect(res.body.next_after).toBe(res.body.data.at(-1)?.id ?? (after || null));
      if (!res.body.has_more) break;
      after = res.body.next_after;
    }
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(events);
    // Nothing after the last one yet: the empty page keeps the cursor.
    const last = events.at(-1).id;
    const empty = await get(eventsPath(a.uuid, `?intent_uuid=${intentUuid}&after=${last}`), a.token);
    expect(empty.body).toEqual({ data: [], has_more: false, next_after: last });
    // A second payment to the paid intent: flagged after_paid, listed after the cursor.
    const { address } = (await e2e.api.read(a.uuid, a.token, intentUuid)).body;
    await record(
      transfer(intentUuid, address, { txHash: newHash(), amountBaseUnits: "1000000000000000000", state: TransferState.SETTLED, version: 1, blockTime: new Date(Math.floor(Date.now() / 1000 - 30) * 1000) }),
    );
    const later = await eventually(
      () => get(eventsPath(a.uuid, `?intent_uuid=${intentUuid}&after=${last}`), a.token),
      (res) => res.body.data.length > 0,
      "the after-paid transfer's event",
    );
    expect(later.body.data.map((e: any) => [e.type, e.sequence, e.flag])).toContainEqual(["pay_in_intent.transfer_flagged", 6, "after_paid"]);
  });

  it("filters by type (one or a comma-separated list) and by intent", async () => {
    const other = await e2e.api.create(a.uuid, a.token, createBody());
    const otherUuid = other.body.intent_uuid as string;
    await eventually(() => intentEvents(otherUuid), (list) => list.length === 1, "the other intent's created event");
    const paid = await get(eventsPath(a.uuid, `?type=pay_in_intent.paid&intent_uuid=${intentUuid}`), a.token);
    expect(paid.body.data.map((e: any) => e.id)).toEqual([events[4].id]);
    const two = await get(eventsPath(a.uuid, `?type=pay_in_intent.paid,pay_in_intent.created&intent_uuid=${intentUuid}`), a.token);
    expect(two.body.data.map((e: any) => e.type)).toEqual(["pay_in_intent.created", "pay_in_intent.paid"]);
    const created = await get(eventsPath(a.uuid, `?type=pay_in_intent.created&limit=100&after=${events[0].id}`), a.token);
    const intents = created.body.data.map((e: any) => e.pay_in_intent.intent_uuid);
    expect(intents).toContain(otherUuid);
    expect(intents).not.toContain(intentUuid);
    expect((await intentEvents(otherUuid)).map((e) => e.type)).toEqual(["pay_in_intent.created"]);
  });

  it("has the pay-in reads' 401, 403 and 404, and lists nothing of another merchant", async () => {
    const id = events[0].id;
    for (const path of [eventsPath(a.uuid), eventsPath(a.uuid, `/${id}`)]) {
      expectError(await get(path), 401, "AUTH_INVALID_CREDENTIALS");
      expectError(await get(path, unknownMachineToken()), 401, "AUTH_INVALID_CREDENTIALS");
      // Another merchant's credential: 403 before any lookup; another merchant's member: 403.
      expectError(await get(path, b.token), 403, "FORBIDDEN");
      expectError(await get(path, adminOfB), 403, "FORBIDDEN");
      // A platform admin is no member: the pay-in reads refuse it too.
      expectError(await get(path, platformAdmin), 403, "FORBIDDEN");
    }
    // B's own events API does not show A's event.
    expectError(await get(eventsPath(b.uuid, `/${id}`), b.token), 404, "EVENT_NOT_FOUND");
    expect((await get(eventsPath(b.uuid, `?intent_uuid=${intentUuid}`), b.token)).body).toEqual({ data: [], has_more: false, next_after: null });
    for (const missing of [UNKNOWN_UUID, "not-an-id", "1"]) expectError(await get(eventsPath(a.uuid, `/${missing}`), a.token), 404, "EVENT_NOT_FOUND");
  });
});

describe("webhook endpoints", () => {
  let endpoint: any;

  it("are created by a person holding webhook.manage: 201, Location, the secret once", async () => {
    const res = await e2e.api.request("POST", endpointsPath(a.uuid), {
      token: adminOfA,
      json: { url: `${receiverUrl}/hook`, event_types: ["pay_in_intent.paid", "pay_in_intent.created"], description: "fulfilment" },
    });
    expect(res.status, res.text).toBe(201);
    expectKeys(res.body, [...ENDPOINT_KEYS, "secret"]);
    expect(res.body.secret).toMatch(SECRET);
    secrets.push(res.body.secret);
    endpoint = res.body;
    expect(endpoint).toMatchObject({ merchant_uuid: a.uuid, url: `${receiverUrl}/hook`, event_types: ["pay_in_intent.paid", "pay_in_intent.created"], description: "fulfilment", enabled: true });
    expect(res.headers.get("location")).toBe(endpointsPath(a.uuid, `/${endpoint.endpoint_uuid}`));
    const read = await get(res.headers.get("location")!, adminOfA);
    expect(read.status).toBe(200);
    expectKeys(read.body, ENDPOINT_KEYS);
    const { secret: _secret, ...withoutSecret } = endpoint;
    expect(read.body).toEqual(withoutSecret);
    const list = await get(endpointsPath(a.uuid), adminOfA);
    expect(list.body).toEqual({ data: [withoutSecret] });
    expect(list.text).not.toContain("whsec_");
  });

  it("take the cookie session with its CSRF token only", async () => {
    const headers = (csrf?: string) => ({ cookie: `__Host-payin_session=${cookieOfA.cookie}`, ...(csrf ? { "x-csrf-token": csrf } : {}) });
    const before = (await get(endpointsPath(a.uuid), adminOfA)).body.data.length;
    expectError(await e2e.api.request("POST", endpointsPath(a.uuid), { headers: headers(), json: { url: `${receiverUrl}/cookie` } }), 403, "CSRF_TOKEN_INVALID");
    expectError(await e2e.api.request("POST", endpointsPath(a.uuid), { headers: headers("wrong"), json: { url: `${receiverUrl}/cookie` } }), 403, "CSRF_TOKEN_INVALID");
    expect((await get(endpointsPath(a.uuid), adminOfA)).body.data.length).toBe(before);
    const created = await e2e.api.request("POST", endpointsPath(a.uuid), { headers: headers(cookieOfA.csrf), json: { url: `${receiverUrl}/cookie` } });
    expect(created.status, created.text).toBe(201);
    secrets.push(created.body.secret);
    expect(created.body.event_types).toBeNull();
    const deleted = await e2e.api.request("DELETE", endpointsPath(a.uuid, `/${created.body.endpoint_uuid}`), { headers: headers(cookieOfA.csrf) });
    expect([deleted.status, deleted.text]).toEqual([204, ""]);
    expectError(await get(endpointsPath(a.uuid, `/${created.body.endpoint_uuid}`), adminOfA), 404, "WEBHOOK_ENDPOINT_NOT_FOUND");
  });

  it("are refused to machine credentials (whatever they hold), members without webhook.manage and other merchants' people; a platform admin manages them", async () => {
    const id = endpoint.endpoint_uuid;
    const routes: [string, string, unknown?][] = [
      ["POST", endpointsPath(a.uuid), { url: `${receiverUrl}/x` }],
      ["GET", endpointsPath(a.uuid)],
      ["GET", endpointsPath(a.uuid, `/${id}`)],
      ["PATCH", endpointsPath(a.uuid, `/${id}`), { description: "changed" }],
      ["DELETE", endpointsPath(a.uuid, `/${id}`)],
      ["POST", endpointsPath(a.uuid, `/${id}/rotate-secret`), {}],
      ["POST", endpointsPath(a.uuid, `/${id}/test`)],
      ["GET", endpointsPath(a.uuid, `/${id}/deliveries`)],
      ["POST", endpointsPath(a.uuid, `/${id}/resend-failed`), { since: "2030-01-01T00:00:00Z" }],
      ["GET", eventsPath(a.uuid, `/${UNKNOWN_UUID}/deliveries`)],
      ["POST", eventsPath(a.uuid, `/${UNKNOWN_UUID}/resend`), {}],
    ];
    for (const [method, path, json] of routes) {
      const what = `${method} ${path}`;
      expectError(await e2e.api.request(method, path, { json }), 401, "AUTH_INVALID_CREDENTIALS");
      expect(expectError(await e2e.api.request(method, path, { token: a.token, json }), 403, "FORBIDDEN").message, what).toMatch(/machine credential may not manage/);
      expect(expectError(await e2e.api.request(method, path, { token: memberOfA, json }), 403, "FORBIDDEN").message, what).toBe("this operation needs the permission webhook.manage");
      expectError(await e2e.api.request(method, path, { token: adminOfB, json }), 403, "FORBIDDEN");
    }
    // Nothing of it happened.
    const read = await get(endpointsPath(a.uuid, `/${id}`), adminOfA);
    expect(read.body.description).toBe("fulfilment");
    // A platform admin: any existing merchant, no membership needed.
    expect((await get(endpointsPath(a.uuid), platformAdmin)).body.data.map((e: any) => e.endpoint_uuid)).toEqual([id]);
    expectError(await get(endpointsPath(UNKNOWN_UUID), platformAdmin), 404, "MERCHANT_NOT_FOUND");
    // Another merchant's endpoint is not found through B's path.
    expectError(await get(endpointsPath(b.uuid, `/${id}`), adminOfB), 404, "WEBHOOK_ENDPOINT_NOT_FOUND");
  });

  it("change by PATCH, only the fields given", async () => {
    const id = endpoint.endpoint_uuid;
    const res = await e2e.api.request("PATCH", endpointsPath(a.uuid, `/${id}`), { token: adminOfA, json: { description: null, event_types: null } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ url: endpoint.url, description: null, event_types: null, enabled: true });
    const disabled = await e2e.api.request("PATCH", endpointsPath(a.uuid, `/${id}`), { token: platformAdmin, json: { enabled: false } });
    expect(disabled.body).toMatchObject({ enabled: false, disabled_reason: null });
    expectError(await e2e.api.request("POST", endpointsPath(a.uuid, `/${id}/test`), { token: adminOfA }), 409, "WEBHOOK_ENDPOINT_DISABLED");
    const enabled = await e2e.api.request("PATCH", endpointsPath(a.uuid, `/${id}`), { token: adminOfA, json: { enabled: true, event_types: ["pay_in_intent.paid", "pay_in_intent.created"] } });
    expect(enabled.body).toMatchObject({ enabled: true, event_types: ["pay_in_intent.paid", "pay_in_intent.created"] });
  });

  it("rotate the secret: a new one, answered once, the previous one signing until the grace period ends", async () => {
    const id = endpoint.endpoint_uuid;
    const before = Date.now();
    const res = await e2e.api.request("POST", endpointsPath(a.uuid, `/${id}/rotate-secret`), { token: adminOfA, json: { grace_seconds: 3600 } });
    expect(res.status, res.text).toBe(200);
    expectKeys(res.body, [...ENDPOINT_KEYS, "secret"]);
    expect(res.body.secret).toMatch(SECRET);
    expect(res.body.secret).not.toBe(endpoint.secret);
    secrets.push(res.body.secret);
    const expires = Date.parse(res.body.previous_secret_expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 3_590_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 3_610_000);
    expect((await get(endpointsPath(a.uuid, `/${id}`), adminOfA)).text).not.toContain("whsec_");
    endpoint = { ...endpoint, previousSecret: endpoint.secret, secret: res.body.secret };
  });

  it("send a test event: 202, its delivery logged for the endpoint and for the event, signed with both secrets while rotating", async () => {
    const id = endpoint.endpoint_uuid;
    const res = await e2e.api.request("POST", endpointsPath(a.uuid, `/${id}/test`), { token: adminOfA });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ type: "webhook.test", merchant_uuid: a.uuid, version: 1 });
    const testId = res.body.id as string;
    // Never listed among the events, nor read as one.
    expectError(await get(eventsPath(a.uuid, `/${testId}`), a.token), 404, "EVENT_NOT_FOUND");
    const deliveries = await get(endpointsPath(a.uuid, `/${id}/deliveries`), adminOfA);
    expect(deliveries.status, deliveries.text).toBe(200);
    expectKeys(deliveries.body, ["data", "has_more", "next_before"]);
    const delivery = deliveries.body.data.find((d: any) => d.event_id === testId);
    expectKeys(delivery, DELIVERY_KEYS);
    expect(delivery).toMatchObject({ endpoint_uuid: id, event_type: "webhook.test" });
    const ofEvent = await get(eventsPath(a.uuid, `/${testId}/deliveries`), adminOfA);
    expect(ofEvent.body.data.map((d: any) => d.delivery_uuid)).toEqual([delivery.delivery_uuid]);
    if (!e2e.platform.processes.has("notifier")) return;
    // With the notifier running: the receiver gets it, signed per Standard Webhooks with both secrets.
    await eventually(async () => received.filter((r) => r.headers["webhook-id"] === testId), (list) => list.length > 0, "the test event's delivery", 30_000);
    const got = received.find((r) => r.headers["webhook-id"] === testId)!;
    const body = JSON.parse(got.body);
    expect(body).toEqual({ type: "webhook.test", timestamp: res.body.created_at, data: res.body });
    const signed = `${testId}.${String(got.headers["webhook-timestamp"])}.${got.body}`;
    const signature = (secret: string) => `v1,${createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64")).update(signed).digest("base64")}`;
    const sent = String(got.headers["webhook-signature"]).split(" ");
    expect(sent).toContain(signature(endpoint.secret));
    expect(sent).toContain(signature(endpoint.previousSecret));
    const done = await eventually(() => get(endpointsPath(a.uuid, `/${id}/deliveries?status=succeeded`), adminOfA), (r) => r.body.data.some((d: any) => d.event_id === testId), "the delivery's success");
    expect(done.body.data.find((d: any) => d.event_id === testId).attempts[0]).toMatchObject({ status_code: 204, error: null });
  });

  it("resend an event to one endpoint and every failed delivery since a time", async () => {
    const id = endpoint.endpoint_uuid;
    const created = await e2e.api.create(a.uuid, a.token, createBody());
    const intentUuid = created.body.intent_uuid as string;
    const [event] = await eventually(() => intentEvents(intentUuid), (list) => list.length === 1, "the created event");
    const resent = await e2e.api.request("POST", eventsPath(a.uuid, `/${event.id}/resend`), { token: adminOfA, json: { endpoint_uuid: id } });
    expect(resent.status, resent.text).toBe(202);
    expect(resent.body.data.map((d: any) => [d.event_id, d.endpoint_uuid])).toEqual([[event.id, id]]);
    expectKeys(resent.body.data[0], DELIVERY_KEYS);
    const again = await e2e.api.request("POST", endpointsPath(a.uuid, `/${id}/resend-failed`), { token: adminOfA, json: { since: "2020-01-01T00:00:00Z" } });
    expect(again.status, again.text).toBe(202);
    expect(again.body).toEqual({ resent: expect.any(Number) });
  });

  it("refuse URLs that do not resolve to public addresses (loopback is allowed only on this local-development platform)", async () => {
    for (const url of ["http://10.0.0.1/hook", "http://169.254.169.254/latest/meta-data", "http://192.168.1.1/", "http://[fe80::1]/", "ftp://example.com/", "http://user:pw@127.0.0.1/"]) {
      expectError(await e2e.api.request("POST", endpointsPath(a.uuid), { token: adminOfA, json: { url } }), 400, "WEBHOOK_URL_INVALID");
    }
  });

  it("never write the secrets to the logs", async () => {
    await expectSecretsAbsentFromLogs(e2e.log, secrets);
  });
});

describe("hostile input on every new route", () => {
  it("is a clear 4xx, never a 5xx, and writes nothing", async () => {
    const id = (await get(endpointsPath(a.uuid), adminOfA)).body.data[0].endpoint_uuid as string;
    const before = (await get(endpointsPath(a.uuid), adminOfA)).body;
    const huge = "x".repeat(70_000);
    /** [method, path, token, body (a string is sent as it is), content type] → status, code. */
    const cases: [string, string, string, unknown, string | undefined, number, string][] = [
      ["GET", eventsPath(a.uuid, "?limit=0"), a.token, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", eventsPath(a.uuid, "?limit=abc"), a.token, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", eventsPath(a.uuid, "?after=nope"), a.token, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", eventsPath(a.uuid, "?type=pay_in_intent.paid&type=checkout.paid"), a.token, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", eventsPath(a.uuid, "?type=webhook.test"), a.token, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", eventsPath(a.uuid, "?type=%00"), a.token, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", eventsPath(a.uuid, "?type=,"), a.token, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", eventsPath(a.uuid, `?type=${"a".repeat(4_000)}`), a.token, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", eventsPath(a.uuid, "?intent_uuid=' OR 1=1 --"), a.token, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", eventsPath(a.uuid, "?offset=5"), a.token, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", eventsPath(a.uuid, `/${UNKNOWN_UUID}?x=1`), a.token, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", eventsPath(a.uuid, "/%F0%9F%98%80"), a.token, undefined, undefined, 404, "EVENT_NOT_FOUND"],
      ["GET", eventsPath(a.uuid, `/${UNKNOWN_UUID}/deliveries?status=all`), adminOfA, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", eventsPath(a.uuid, `/${UNKNOWN_UUID}/deliveries`), adminOfA, undefined, undefined, 404, "EVENT_NOT_FOUND"],
      ["POST", eventsPath(a.uuid, `/${UNKNOWN_UUID}/resend`), adminOfA, {}, undefined, 404, "EVENT_NOT_FOUND"],
      ["POST", eventsPath(a.uuid, `/${UNKNOWN_UUID}/resend`), adminOfA, { endpoint_uuid: 1 }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", eventsPath(a.uuid, `/${UNKNOWN_UUID}/resend`), adminOfA, { endpoint: id }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid), adminOfA, { url: `${receiverUrl}/h`, secret: "whsec_AAAA" }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid), adminOfA, { url: `${receiverUrl}/h`, enabled: false }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid), adminOfA, {}, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid), adminOfA, { url: true }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid), adminOfA, { url: `https://e.com/${"a".repeat(2_100)}` }, undefined, 400, "WEBHOOK_URL_INVALID"],
      ["POST", endpointsPath(a.uuid), adminOfA, { url: "not a url" }, undefined, 400, "WEBHOOK_URL_INVALID"],
      ["POST", endpointsPath(a.uuid), adminOfA, { url: "javascript:alert(1)" }, undefined, 400, "WEBHOOK_URL_INVALID"],
      ["POST", endpointsPath(a.uuid), adminOfA, { url: `${receiverUrl}/h`, event_types: ["pay_in_intent.paid", "pay_in_intent.paid"] }, undefined, 400, "WEBHOOK_EVENT_TYPES_INVALID"],
      ["POST", endpointsPath(a.uuid), adminOfA, { url: `${receiverUrl}/h`, event_types: ["webhook.test"] }, undefined, 400, "WEBHOOK_EVENT_TYPES_INVALID"],
      ["POST", endpointsPath(a.uuid), adminOfA, { url: `${receiverUrl}/h`, event_types: [] }, undefined, 400, "WEBHOOK_EVENT_TYPES_INVALID"],
      ["POST", endpointsPath(a.uuid), adminOfA, { url: `${receiverUrl}/h`, event_types: [{ $ne: null }] }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid), adminOfA, { url: `${receiverUrl}/h`, description: "d".repeat(201) }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid), adminOfA, { url: `${receiverUrl}/h`, description: "evil\u202Etxt" }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid), adminOfA, `{"url":"${receiverUrl}/h","url":"${receiverUrl}/i"}`, "application/json", 400, "MALFORMED_JSON"],
      ["POST", endpointsPath(a.uuid), adminOfA, '{"url": "\\ud800"}', "application/json", 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid), adminOfA, "[1,2]", "application/json", 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid), adminOfA, "{", "application/json", 400, "MALFORMED_JSON"],
      ["POST", endpointsPath(a.uuid), adminOfA, `{"url":"${huge}"}`, "application/json", 413, "PAYLOAD_TOO_LARGE"],
      ["POST", endpointsPath(a.uuid), adminOfA, `url=${receiverUrl}`, "application/x-www-form-urlencoded", 415, "UNSUPPORTED_MEDIA_TYPE"],
      ["PATCH", endpointsPath(a.uuid, `/${id}`), adminOfA, {}, undefined, 400, "VALIDATION_ERROR"],
      ["PATCH", endpointsPath(a.uuid, `/${id}`), adminOfA, { enabled: "false" }, undefined, 400, "VALIDATION_ERROR"],
      ["PATCH", endpointsPath(a.uuid, `/${id}`), adminOfA, { url: null }, undefined, 400, "VALIDATION_ERROR"],
      ["PATCH", endpointsPath(a.uuid, `/${id}`), adminOfA, { description: "ok", url: "http://10.1.2.3/" }, undefined, 400, "WEBHOOK_URL_INVALID"],
      ["PATCH", endpointsPath(a.uuid, `/${id}`), adminOfA, { description: "ok", event_types: ["nope"] }, undefined, 400, "WEBHOOK_EVENT_TYPES_INVALID"],
      ["PATCH", endpointsPath(a.uuid, "/nope"), adminOfA, { enabled: true }, undefined, 404, "WEBHOOK_ENDPOINT_NOT_FOUND"],
      ["PATCH", endpointsPath(a.uuid, `/${UNKNOWN_UUID}`), adminOfA, { enabled: true }, undefined, 404, "WEBHOOK_ENDPOINT_NOT_FOUND"],
      ["DELETE", endpointsPath(a.uuid, `/${id}`), adminOfA, { confirm: true }, undefined, 400, "VALIDATION_ERROR"],
      ["DELETE", endpointsPath(a.uuid, `/${UNKNOWN_UUID}`), adminOfA, undefined, undefined, 404, "WEBHOOK_ENDPOINT_NOT_FOUND"],
      ["GET", endpointsPath(a.uuid, "?limit=5"), adminOfA, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid, `/${id}/rotate-secret`), adminOfA, { grace_seconds: 604_801 }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid, `/${id}/rotate-secret`), adminOfA, { grace_seconds: -1 }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid, `/${id}/rotate-secret`), adminOfA, { grace_seconds: 1.5 }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid, `/${id}/rotate-secret`), adminOfA, { secret: "whsec_mine" }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid, `/${id}/test`), adminOfA, { type: "pay_in_intent.paid" }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid, `/${UNKNOWN_UUID}/test`), adminOfA, undefined, undefined, 404, "WEBHOOK_ENDPOINT_NOT_FOUND"],
      ["GET", endpointsPath(a.uuid, `/${id}/deliveries?before=${UNKNOWN_UUID}`), adminOfA, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["GET", endpointsPath(a.uuid, `/${id}/deliveries?limit=1000`), adminOfA, undefined, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid, `/${id}/resend-failed`), adminOfA, {}, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid, `/${id}/resend-failed`), adminOfA, { since: "2030-13-01T00:00:00Z" }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid, `/${id}/resend-failed`), adminOfA, { since: 0 }, undefined, 400, "VALIDATION_ERROR"],
      ["POST", endpointsPath(a.uuid, `/${UNKNOWN_UUID}/resend-failed`), adminOfA, { since: "2030-01-01T00:00:00Z" }, undefined, 404, "WEBHOOK_ENDPOINT_NOT_FOUND"],
    ];
    for (const [method, path, token, body, contentType, status, code] of cases) {
      const options = typeof body === "string" ? { token, raw: body, headers: { "content-type": contentType! } } : { token, json: body };
      const res = await e2e.api.request(method, path, options);
      const what = `${method} ${path.slice(0, 120)} ${String(typeof body === "string" ? body : JSON.stringify(body)).slice(0, 80)}`;
      expect([res.status, res.body?.error?.code], `${what}: ${res.text.slice(0, 300)}`).toEqual([status, code]);
      expectError(res, status, code);
    }
    // Nothing was written: the endpoints are as they were (the failed PATCHes changed no field either).
    expect((await get(endpointsPath(a.uuid), adminOfA)).body).toEqual(before);
  });
});
