/**
 * The events and webhook-endpoint routes in process, on stand-in services:
 * who may call which (machine credentials read events and manage nothing;
 * webhook.manage members and platform admins manage), what is sent to
 * notifications, that a secret is only in the create and rotate answers, and
 * that hostile input is a clear 4xx that never reaches notifications. The
 * real service behind them is exercised by test/webhooks.e2e.test.ts.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "@payin/logging";
import { ErrorDetailSchema, notificationsV1 } from "@payin/proto";
import { Code, ConnectError, toTimestamp } from "@payin/rpc";
import { PERMISSIONS } from "@payin/permissions";
import type { Context } from "koa";
import { createApp, type AppDeps } from "../../app.js";
import type { Principal } from "../../auth/authenticator.js";
import { testPerson } from "../../auth/test-principals.js";

const MERCHANT = "01a2008d-7400-7000-8000-00000000000a";
const OTHER_MERCHANT = "01a2008d-7400-7000-8000-00000000000f";
const ENDPOINT = "01a2008d-7400-7000-8000-0000000000e0";
const EVENT = "01a2008d-7400-7000-8000-0000000000e1";
const DISABLED = "01a2008d-7400-7000-8000-0000000000d0";
const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const BASE = `/api/v1/merchants/${MERCHANT}`;

/** Who the stand-in authenticator says a request is, by its x-as header. */
const PRINCIPALS: Record<string, Principal> = {
  machine: { kind: "machine", merchantUuid: MERCHANT, permissions: new Set(["merchant.payin.create", "merchant.payin.read"]), actorAssertion: "pa1.machine" },
  // Members: their membership's role decides (the stand-in merchants client below).
  "merchant-admin": testPerson({ identityUuid: "01a2008d-7400-7000-8000-0000000000a1", roles: ["merchant_admin"], privileged: false, actorAssertion: "pa1.merchant-admin" }, []),
  "merchant-member": testPerson({ identityUuid: "01a2008d-7400-7000-8000-0000000000a2", roles: ["merchant_member"], privileged: false }, []),
  outsider: testPerson({ identityUuid: "01a2008d-7400-7000-8000-0000000000a3", roles: ["merchant_admin"], privileged: false }, ["webhook.manage"]),
  "platform-admin": testPerson({ identityUuid: "01a2008d-7400-7000-8000-0000000000a4", actorAssertion: "pa1.platform-admin" }, PERMISSIONS),
  "admin-without-mfa": testPerson({ identityUuid: "01a2008d-7400-7000-8000-0000000000a5", mfaSatisfied: false }, PERMISSIONS),
};
const ROLES: Record<string, string> = {
  "01a2008d-7400-7000-8000-0000000000a1": "merchant_admin",
  "01a2008d-7400-7000-8000-0000000000a2": "merchant_member",
};

const at = toTimestamp(new Date("2030-01-02T03:04:05.678Z"));
const endpoint = create(notificationsV1.WebhookEndpointSchema, {
  endpointUuid: ENDPOINT,
  merchantUuid: MERCHANT,
  url: "https://example.com/hook",
  eventTypes: [],
  enabled: true,
  createdAt: at,
  updatedAt: at,
});
const eventData = (id: string, sequence: number) =>
  JSON.stringify({ id, type: "pay_in_intent.created", version: 1, created_at: "2030-01-02T03:04:05.678Z", merchant_uuid: MERCHANT, sequence, pay_in_intent: { intent_uuid: "x" } });
const event = (id: string, sequence: number) => create(notificationsV1.EventSchema, { eventUuid: id, merchantUuid: MERCHANT, type: "pay_in_intent.created", createdAt: at, sequence: BigInt(sequence), dataJson: eventData(id, sequence) });
const refused = (code: Code, reason: string) => new ConnectError(reason, code, undefined, [{ desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { reason, domain: "x" }) }]);
const notFound = (reason: string) => refused(Code.NotFound, reason);

/** What the stand-in notifications client was asked, and answers. */
const calls: { method: string; request: any }[] = [];
const audits: any[] = [];
let listEventsAnswer: notificationsV1.ListEventsResponse = create(notificationsV1.ListEventsResponseSchema, {});

function recording<T>(method: string, answer: (request: any) => T) {
  return async (request: any) => {
    calls.push({ method, request });
    return answer(request);
  };
}

const notifications = {
  listEvents: recording("listEvents", () => listEventsAnswer),
  getEvent: recording("getEvent", (req) => {
    if (req.eventUuid !== EVENT) throw notFound("EVENT_NOT_FOUND");
    return { event: event(EVENT, 1) };
  }),
  createWebhookEndpoint: recording("createWebhookEndpoint", () => ({ endpoint, secret: SECRET })),
  listWebhookEndpoints: recording("listWebhookEndpoints", () => ({ endpoints: [endpoint] })),
  getWebhookEndpoint: recording("getWebhookEndpoint", () => ({ endpoint })),
  updateWebhookEndpoint: recording("updateWebhookEndpoint", () => ({ endpoint })),
  deleteWebhookEndpoint: recording("deleteWebhookEndpoint", () => ({})),
  rotateWebhookSecret: recording("rotateWebhookSecret", () => ({ endpoint: { ...endpoint, previousSecretExpiresAt: at }, secret: SECRET })),
  sendTestEvent: recording("sendTestEvent", (req) => {
    if (req.endpointUuid === DISABLED) throw refused(Code.FailedPrecondition, "WEBHOOK_ENDPOINT_DISABLED");
    return { event: event(EVENT, 1) };
  }),
  listDeliveries: recording("listDeliveries", () => ({ deliveries: [], hasMore: false })),
  resendEvent: recording("resendEvent", () => ({ deliveries: [] })),
  resendFailedDeliveries: recording("resendFailedDeliveries", () => ({ resent: 3 })),
} as unknown as AppDeps["notifications"];

const merchants = {
  listMemberships: async ({ identityUuid }: { identityUuid: string }) => ({
    memberships: ROLES[identityUuid] ? [{ merchantUuid: MERCHANT, identityUuid, role: ROLES[identityUuid] }] : [],
  }),
  getMerchant: async ({ uuid }: { uuid: string }) => {
    if (uuid !== MERCHANT) throw notFound("MERCHANT_NOT_FOUND");
    return { merchant: { uuid } };
  },
  recordAuditEvent: async (request: any) => {
    audits.push(request.event);
    return {};
  },
} as unknown as AppDeps["merchants"];

let server: http.Server;
let base: string;

beforeAll(async () => {
  const unreachable = {} as never;
  const app = createApp({
    logger: createLogger("test", { level: "silent" }),
    auth: {
      authenticate: async (ctx: Context) => {
        const principal = PRINCIPALS[ctx.get("x-as")];
        if (!principal) throw new Error(`no principal ${ctx.get("x-as")}`);
        return principal;
      },
    } as unknown as AppDeps["auth"],
    identity: unreachable,
    payins: unreachable,
    allocation: unreachable,
    merchants,
    notifications,
  });
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

beforeEach(() => {
  calls.length = 0;
  audits.length = 0;
});

async function call(as: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { "x-as": as, ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? (JSON.parse(text) as any) : undefined };
}

/** Every management route, with a body it accepts. */
const MANAGEMENT: [string, string, unknown?][] = [
  ["POST", `${BASE}/webhook-endpoints`, { url: "https://example.com/hook" }],
  ["GET", `${BASE}/webhook-endpoints`],
  ["GET", `${BASE}/webhook-endpoints/${ENDPOINT}`],
  ["PATCH", `${BASE}/webhook-endpoints/${ENDPOINT}`, { enabled: false }],
  ["DELETE", `${BASE}/webhook-endpoints/${ENDPOINT}`],
  ["POST", `${BASE}/webhook-endpoints/${ENDPOINT}/rotate-secret`, {}],
  ["POST", `${BASE}/webhook-endpoints/${ENDPOINT}/test`],
  ["GET", `${BASE}/webhook-endpoints/${ENDPOINT}/deliveries`],
  ["POST", `${BASE}/webhook-endpoints/${ENDPOINT}/resend-failed`, { since: "2030-01-01T00:00:00Z" }],
  ["GET", `${BASE}/events/${EVENT}/deliveries`],
  ["POST", `${BASE}/events/${EVENT}/resend`, {}],
];

describe("who may", () => {
  it("lets a machine credential of the merchant read events, and refuses it every management route before anything else", async () => {
    expect((await call("machine", "GET", `${BASE}/events`)).status).toBe(200);
    expect((await call("machine", "GET", `${BASE}/events/${EVENT}`)).status).toBe(200);
    expect((await call("machine", "GET", `/api/v1/merchants/${OTHER_MERCHANT}/events`)).body.error).toMatchObject({ code: "FORBIDDEN" });
    calls.length = 0;
    for (const [method, path, body] of MANAGEMENT) {
      const res = await call("machine", method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error, `${method} ${path}`).toMatchObject({ code: "FORBIDDEN", message: expect.stringMatching(/machine credential may not manage/) });
    }
    expect(calls).toEqual([]);
  });

  it("lets a member whose role grants webhook.manage manage, and refuses a member without it and a person of another merchant", async () => {
    for (const [method, path, body] of MANAGEMENT) {
      expect((await call("merchant-admin", method, path, body)).status, `${method} ${path}`).toBeLessThan(300);
      const member = await call("merchant-member", method, path, body);
      expect([member.status, member.body.error.message], `${method} ${path}`).toEqual([403, "this operation needs the permission webhook.manage"]);
      const outsider = await call("outsider", method, path, body);
      expect([outsider.status, outsider.body.error.message], `${method} ${path}`).toEqual([403, "the signed-in identity is not a member of this merchant"]);
    }
    // Members read events as they read pay-ins.
    expect((await call("merchant-member", "GET", `${BASE}/events`)).status).toBe(200);
    expect((await call("outsider", "GET", `${BASE}/events`)).status).toBe(403);
  });

  it("lets a platform admin manage any existing merchant's endpoints without a membership (after MFA); another merchant is 404", async () => {
    for (const [method, path, body] of MANAGEMENT) {
      expect((await call("platform-admin", method, path, body)).status, `${method} ${path}`).toBeLessThan(300);
      expect((await call("admin-without-mfa", method, path, body)).body.error.code, `${method} ${path}`).toBe("MFA_REQUIRED");
    }
    const missing = await call("platform-admin", "GET", `/api/v1/merchants/${OTHER_MERCHANT}/webhook-endpoints`);
    expect([missing.status, missing.body.error.code]).toEqual([404, "MERCHANT_NOT_FOUND"]);
    const malformed = await call("platform-admin", "GET", "/api/v1/merchants/not-a-uuid/webhook-endpoints");
    expect([malformed.status, malformed.body.error.code]).toEqual([404, "MERCHANT_NOT_FOUND"]);
    // Events: the pay-in reads' rule, for which an admin is no member.
    expect((await call("platform-admin", "GET", `${BASE}/events`)).status).toBe(403);
  });
});

describe("answers", () => {
  it("show the secret in the create and rotate answers only, with 201 and Location on create", async () => {
    const created = await call("merchant-admin", "POST", `${BASE}/webhook-endpoints`, { url: "https://example.com/hook", event_types: ["pay_in_intent.paid"], description: "Shop" });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`${BASE}/webhook-endpoints/${ENDPOINT}`);
    expect(created.body.secret).toBe(SECRET);
    expect(calls.at(-1)).toEqual({
      method: "createWebhookEndpoint",
      request: { merchantUuid: MERCHANT, url: "https://example.com/hook", eventTypes: ["pay_in_intent.paid"], description: "Shop", actorAssertion: "pa1.merchant-admin" },
    });
    const rotated = await call("merchant-admin", "POST", `${BASE}/webhook-endpoints/${ENDPOINT}/rotate-secret`, { grace_seconds: 60 });
    expect([rotated.status, rotated.body.secret, rotated.body.previous_secret_expires_at]).toEqual([200, SECRET, "2030-01-02T03:04:05.678Z"]);
    expect(calls.at(-1)!.request).toMatchObject({ graceSeconds: 60, actorAssertion: "pa1.merchant-admin" });
    // Without a body: the default grace period.
    await call("merchant-admin", "POST", `${BASE}/webhook-endpoints/${ENDPOINT}/rotate-secret`);
    expect(calls.at(-1)!.request.graceSeconds).toBeUndefined();
    for (const [method, path, body] of MANAGEMENT.filter(([, path]) => !/rotate-secret$/.test(path)).slice(1)) {
      const res = await call("merchant-admin", method, path, body);
      expect(res.text.includes(SECRET) || res.text.includes("whsec_") || res.text.includes("secret\""), `${method} ${path}`).toBe(false);
    }
  });

  it("give an endpoint with null for every type and no description, and delete as 204 without a body", async () => {
    const read = await call("merchant-admin", "GET", `${BASE}/webhook-endpoints/${ENDPOINT}`);
    expect(read.body).toEqual({
      endpoint_uuid: ENDPOINT,
      merchant_uuid: MERCHANT,
      url: "https://example.com/hook",
      event_types: null,
      description: null,
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
      previous_secret_expires_at: null,
      created_at: "2030-01-02T03:04:05.678Z",
      updated_at: "2030-01-02T03:04:05.678Z",
    });
    const deleted = await call("merchant-admin", "DELETE", `${BASE}/webhook-endpoints/${ENDPOINT}`);
    expect([deleted.status, deleted.text]).toEqual([204, ""]);
  });

  it("list events as their data, with the cursor to continue from", async () => {
    const second = "01a2008d-7400-7000-8000-0000000000e2";
    listEventsAnswer = create(notificationsV1.ListEventsResponseSchema, { events: [event(EVENT, 1), event(second, 2)], hasMore: true });
    const page = await call("machine", "GET", `${BASE}/events?type=pay_in_intent.created,checkout.paid&limit=2&intent_uuid=${EVENT.toUpperCase()}`);
    expect(page.body).toEqual({ data: [JSON.parse(eventData(EVENT, 1)), JSON.parse(eventData(second, 2))], has_more: true, next_after: second });
    expect(calls.at(-1)!.request).toEqual({ merchantUuid: MERCHANT, after: "", types: ["pay_in_intent.created", "checkout.paid"], intentUuid: EVENT, limit: 2 });
    listEventsAnswer = create(notificationsV1.ListEventsResponseSchema, {});
    expect((await call("machine", "GET", `${BASE}/events?after=${second}`)).body).toEqual({ data: [], has_more: false, next_after: second });
    expect((await call("machine", "GET", `${BASE}/events`)).body).toEqual({ data: [], has_more: false, next_after: null });
  });

  it("answer a malformed or unknown event id or endpoint uuid as not found", async () => {
    for (const path of [`${BASE}/events/nope`, `${BASE}/events/${ENDPOINT}`]) {
      const res = await call("machine", "GET", path);
      expect([res.status, res.body.error.code], path).toEqual([404, "EVENT_NOT_FOUND"]);
    }
    const res = await call("merchant-admin", "GET", `${BASE}/webhook-endpoints/nope`);
    expect([res.status, res.body.error.code]).toEqual([404, "WEBHOOK_ENDPOINT_NOT_FOUND"]);
    expect(calls.map((c) => c.method)).toEqual(["getEvent"]);
  });
});

describe("hostile input", () => {
  /** [method, path, body (a string is sent as it is), headers] → the 4xx expected. */
  const CASES: [string, string, unknown, Record<string, string>, number, string][] = [
    ["POST", `${BASE}/webhook-endpoints`, { url: "https://e.com", secret: "whsec_mine" }, {}, 400, "VALIDATION_ERROR"],
    ["POST", `${BASE}/webhook-endpoints`, { url: "https://e.com", event_types: ["webhook.test"] }, {}, 400, "WEBHOOK_EVENT_TYPES_INVALID"],
    ["POST", `${BASE}/webhook-endpoints`, { url: "x".repeat(3_000) }, {}, 400, "WEBHOOK_URL_INVALID"],
    ["POST", `${BASE}/webhook-endpoints`, { url: "https://e.com", description: "\u0000" }, {}, 400, "VALIDATION_ERROR"],
    ["POST", `${BASE}/webhook-endpoints`, '{"url":"https://e.com","url":"https://f.com"}', {}, 400, "MALFORMED_JSON"],
    ["POST", `${BASE}/webhook-endpoints`, '{"url":', {}, 400, "MALFORMED_JSON"],
    ["POST", `${BASE}/webhook-endpoints`, "[]", {}, 400, "VALIDATION_ERROR"],
    ["POST", `${BASE}/webhook-endpoints`, `{"url":"${"a".repeat(70_000)}"}`, {}, 413, "PAYLOAD_TOO_LARGE"],
    ["POST", `${BASE}/webhook-endpoints`, "url=https://e.com", { "content-type": "application/x-www-form-urlencoded" }, 415, "UNSUPPORTED_MEDIA_TYPE"],
    ["POST", `${BASE}/webhook-endpoints?url=https://e.com`, { url: "https://e.com" }, {}, 400, "VALIDATION_ERROR"],
    ["POST", `${BASE}/webhook-endpoints`, undefined, {}, 415, "UNSUPPORTED_MEDIA_TYPE"],
    ["PATCH", `${BASE}/webhook-endpoints/${ENDPOINT}`, {}, {}, 400, "VALIDATION_ERROR"],
    ["PATCH", `${BASE}/webhook-endpoints/${ENDPOINT}`, { enabled: "yes" }, {}, 400, "VALIDATION_ERROR"],
    ["PATCH", `${BASE}/webhook-endpoints/${ENDPOINT}`, { url: { href: "https://e.com" } }, {}, 400, "VALIDATION_ERROR"],
    ["PATCH", `${BASE}/webhook-endpoints/nope`, { enabled: true }, {}, 404, "WEBHOOK_ENDPOINT_NOT_FOUND"],
    ["DELETE", `${BASE}/webhook-endpoints/${ENDPOINT}`, { force: true }, {}, 400, "VALIDATION_ERROR"],
    ["POST", `${BASE}/webhook-endpoints/${ENDPOINT}/rotate-secret`, { grace_seconds: -5 }, {}, 400, "VALIDATION_ERROR"],
    ["POST", `${BASE}/webhook-endpoints/${ENDPOINT}/rotate-secret`, { grace_seconds: "3600" }, {}, 400, "VALIDATION_ERROR"],
    ["POST", `${BASE}/webhook-endpoints/${ENDPOINT}/test`, { type: "pay_in_intent.paid" }, {}, 400, "VALIDATION_ERROR"],
    ["POST", `${BASE}/webhook-endpoints/${ENDPOINT}/resend-failed`, {}, {}, 400, "VALIDATION_ERROR"],
    ["POST", `${BASE}/webhook-endpoints/${ENDPOINT}/resend-failed`, { since: "last week" }, {}, 400, "VALIDATION_ERROR"],
    ["POST", `${BASE}/events/${EVENT}/resend`, { endpoint_uuid: "' OR 1=1 --" }, {}, 400, "VALIDATION_ERROR"],
    ["POST", `${BASE}/events/..%2F..%2Fadmin/resend`, {}, {}, 404, "EVENT_NOT_FOUND"],
    ["GET", `${BASE}/webhook-endpoints/${ENDPOINT}/deliveries?status=lost`, undefined, {}, 400, "VALIDATION_ERROR"],
    ["GET", `${BASE}/webhook-endpoints/${ENDPOINT}/deliveries?before=1&before=2`, undefined, {}, 400, "VALIDATION_ERROR"],
    ["GET", `${BASE}/events?type=pay_in_intent.paid&type=checkout.paid`, undefined, {}, 400, "VALIDATION_ERROR"],
    ["GET", `${BASE}/events?limit=-1`, undefined, {}, 400, "VALIDATION_ERROR"],
    ["GET", `${BASE}/events?after=%00`, undefined, {}, 400, "VALIDATION_ERROR"],
    ["GET", `${BASE}/events?type=${"x".repeat(5_000)}`, undefined, {}, 400, "VALIDATION_ERROR"],
  ];

  it("is a clear 4xx that never reaches notifications, and each refused change is audited under its action", async () => {
    for (const [method, path, body, headers, status, code] of CASES) {
      calls.length = 0;
      const res = await call("merchant-admin", method, path, body, headers);
      expect([res.status, res.body?.error?.code], `${method} ${path} ${String(JSON.stringify(body)).slice(0, 60)}: ${res.text.slice(0, 200)}`).toEqual([status, code]);
      expect(res.body.error.message.length).toBeGreaterThan(0);
      expect(calls, `${method} ${path}`).toEqual([]);
    }
    expect(audits.length).toBeGreaterThan(0);
    for (const audit of audits) expect(audit).toMatchObject({ outcome: "failed", actor: { assertion: "pa1.merchant-admin" } });
    expect(audits.map((a) => a.action)).toContain("webhook_endpoint.create");
  });

  it("passes a service's refusal on with its code, audited under the change's action", async () => {
    const res = await call("merchant-admin", "POST", `${BASE}/webhook-endpoints/${DISABLED}/test`);
    expect([res.status, res.body.error.code]).toEqual([409, "WEBHOOK_ENDPOINT_DISABLED"]);
    expect(audits.at(-1)).toMatchObject({ action: "webhook_endpoint.test", targetType: "webhook_endpoint", targetUuid: DISABLED, outcome: "failed", errorCode: "WEBHOOK_ENDPOINT_DISABLED" });
  });
});
