/**
 * The webhook pages against an in-memory notifications service (and identity
 * and merchants answering for three people): what each page shows, what each
 * form sends (with the person's actor assertion), and every refusal as a
 * readable page that changes nothing. The real platform's e2e test
 * (test/merchant-webhooks.e2e.test.ts) covers the same pages end to end.
 */
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { create } from "@bufbuild/protobuf";
import Koa from "koa";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "@payin/logging";
import { ErrorDetailSchema, identityV1, type notificationsV1 } from "@payin/proto";
import { Code, ConnectError, fromTimestamp, toTimestamp } from "@payin/rpc";
import { pageErrorMiddleware } from "../../http/page-errors.js";
import { createViews } from "../../views.js";
import { dashboardRoutes, type DashboardDeps } from "./dashboard.js";
import { webhookRoutes, type WebhooksDeps } from "./webhooks.js";

const MERCHANT = "0194f000-0000-7000-8000-000000000001";
const OTHER_MERCHANT = "0194f000-0000-7000-8000-000000000002";
const NOW = new Date("2026-11-27T12:00:00Z");
const SECRET = "whsec_c2VjcmV0LW9mLXRoZS10ZXN0LWVuZHBvaW50LTEyMzQ1Ng==";
const ROTATED = "whsec_bmV3LXNlY3JldC1vZi10aGUtdGVzdC1lbmRwb2ludC0xMjM=";

/** People by session token: an admin (webhook.manage), a member (without it), and one of two merchants. */
const PEOPLE: Record<string, { uuid: string; permissions: string[]; merchants: { merchantUuid: string; role?: string }[] }> = {
  admin: { uuid: "0194f000-0000-7000-8000-0000000000a1", permissions: ["merchant.payin.create", "merchant.payin.read", "checkout.manage", "webhook.manage"], merchants: [{ merchantUuid: MERCHANT }] },
  member: { uuid: "0194f000-0000-7000-8000-0000000000a2", permissions: ["merchant.payin.create", "merchant.payin.read"], merchants: [{ merchantUuid: MERCHANT }] },
};

const refusal = (code: Code, reason: string, message: string) =>
  new ConnectError(message, code, undefined, [{ desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { reason, domain: "notifications" }) }]);

/** What the fake service was asked to change, in order. */
const calls: { method: string; request: Record<string, unknown> }[] = [];
let endpoints: notificationsV1.WebhookEndpoint[] = [];
let deliveries: notificationsV1.Delivery[] = [];
let endpointLimit = 10;
let counter = 0;
const uuidNo = (n: number) => `0194f000-0000-7000-9000-${n.toString(16).padStart(12, "0")}`;

function endpointOf(fields: Partial<notificationsV1.WebhookEndpoint>): notificationsV1.WebhookEndpoint {
  return {
    endpointUuid: uuidNo(++counter),
    merchantUuid: MERCHANT,
    url: "https://hooks.example.com/payin",
    eventTypes: [],
    description: "",
    enabled: true,
    disabledReason: "",
    createdAt: toTimestamp(NOW),
    updatedAt: toTimestamp(NOW),
    ...fields,
  } as notificationsV1.WebhookEndpoint;
}

function deliveryOf(endpointUuid: string, fields: Partial<notificationsV1.Delivery> = {}): notificationsV1.Delivery {
  return {
    deliveryUuid: uuidNo(++counter),
    eventUuid: uuidNo(++counter),
    endpointUuid,
    eventType: "pay_in_intent.paid",
    status: "failed",
    attemptCount: 1,
    createdAt: toTimestamp(NOW),
    updatedAt: toTimestamp(NOW),
    attempts: [{ attemptedAt: toTimestamp(NOW), statusCode: 500, durationMs: 42, responseExcerpt: "<b>oops</b>", error: "" }],
    ...fields,
  } as notificationsV1.Delivery;
}

function find(merchantUuid: string, endpointUuid: string): notificationsV1.WebhookEndpoint {
  const endpoint = endpoints.find((e) => e.merchantUuid === merchantUuid && e.endpointUuid === endpointUuid);
  if (!endpoint) throw refusal(Code.NotFound, "WEBHOOK_ENDPOINT_NOT_FOUND", "webhook endpoint not found");
  return endpoint;
}

const notifications = {
  async listWebhookEndpoints(req: { merchantUuid: string }) {
    return { endpoints: endpoints.filter((e) => e.merchantUuid === req.merchantUuid) };
  },
  async getWebhookEndpoint(req: { merchantUuid: string; endpointUuid: string }) {
    return { endpoint: find(req.merchantUuid, req.endpointUuid) };
  },
  async createWebhookEndpoint(req: { merchantUuid: string; url: string; eventTypes: string[]; description: string; actorAssertion: string }) {
    calls.push({ method: "create", request: req });
    if (req.url.includes("10.0.0.1")) throw refusal(Code.InvalidArgument, "WEBHOOK_URL_INVALID", "url: the host 10.0.0.1 resolves to a refused address: 10.0.0.1 is not a public address (private)");
    if (endpoints.length >= endpointLimit) throw refusal(Code.FailedPrecondition, "WEBHOOK_ENDPOINT_LIMIT", `a merchant has at most ${endpointLimit} webhook endpoints: delete one first`);
    const endpoint = endpointOf({ merchantUuid: req.merchantUuid, url: req.url, eventTypes: req.eventTypes, description: req.description });
    endpoints.push(endpoint);
    return { endpoint, secret: SECRET };
  },
  async updateWebhookEndpoint(req: { merchantUuid: string; endpointUuid: string; url?: string; eventTypes?: { types: string[] }; description?: string; enabled?: boolean }) {
    calls.push({ method: "update", request: req });
    const endpoint = find(req.merchantUuid, req.endpointUuid);
    if (req.url?.includes("10.0.0.1")) throw refusal(Code.InvalidArgument, "WEBHOOK_URL_INVALID", "url: the host 10.0.0.1 resolves to a refused address");
    if (req.url !== undefined) endpoint.url = req.url;
    if (req.eventTypes !== undefined) endpoint.eventTypes = req.eventTypes.types;
    if (req.description !== undefined) endpoint.description = req.description;
    if (req.enabled !== undefined) Object.assign(endpoint, { enabled: req.enabled, disabledReason: "" });
    return { endpoint };
  },
  async deleteWebhookEndpoint(req: { merchantUuid: string; endpointUuid: string }) {
    calls.push({ method: "delete", request: req });
    find(req.merchantUuid, req.endpointUuid);
    endpoints = endpoints.filter((e) => e.endpointUuid !== req.endpointUuid);
    return {};
  },
  async rotateWebhookSecret(req: { merchantUuid: string; endpointUuid: string }) {
    calls.push({ method: "rotate", request: req });
    const endpoint = find(req.merchantUuid, req.endpointUuid);
    endpoint.previousSecretExpiresAt = toTimestamp(new Date(NOW.getTime() + 24 * 3_600_000));
    return { endpoint, secret: ROTATED };
  },
  async sendTestEvent(req: { merchantUuid: string; endpointUuid: string }) {
    calls.push({ method: "test", request: req });
    const endpoint = find(req.merchantUuid, req.endpointUuid);
    if (!endpoint.enabled) throw refusal(Code.FailedPrecondition, "WEBHOOK_ENDPOINT_DISABLED", "the webhook endpoint is disabled: enable it first");
    const delivery = deliveryOf(endpoint.endpointUuid, { eventType: "webhook.test", status: "pending", attempts: [] });
    deliveries.unshift(delivery);
    return { event: { eventUuid: delivery.eventUuid, type: "webhook.test" } };
  },
  async listDeliveries(req: { merchantUuid: string; endpointUuid: string; eventUuid: string; limit: number; before: string }) {
    const mine = deliveries.filter((d) => (req.endpointUuid ? d.endpointUuid === req.endpointUuid : d.eventUuid === req.eventUuid));
    const start = req.before ? mine.findIndex((d) => d.deliveryUuid === req.before) + 1 : 0;
    const page = mine.slice(start, start + req.limit);
    return { deliveries: page, hasMore: start + req.limit < mine.length };
  },
  async getEvent(req: { eventUuid: string }) {
    const delivery = deliveries.find((d) => d.eventUuid === req.eventUuid);
    if (!delivery || delivery.eventType === "webhook.test") throw refusal(Code.NotFound, "EVENT_NOT_FOUND", "event not found");
    return { event: { eventUuid: req.eventUuid, type: delivery.eventType, createdAt: toTimestamp(NOW), sequence: 4n, intentUuid: uuidNo(999) } };
  },
  async resendEvent(req: { merchantUuid: string; eventUuid: string; endpointUuid: string }) {
    calls.push({ method: "resend", request: req });
    if (!deliveries.some((d) => d.eventUuid === req.eventUuid)) throw refusal(Code.NotFound, "EVENT_NOT_FOUND", "event not found");
    return { deliveries: [] };
  },
  async resendFailedDeliveries(req: { merchantUuid: string; endpointUuid: string; since: unknown }) {
    calls.push({ method: "resendFailed", request: req });
    find(req.merchantUuid, req.endpointUuid);
    return { resent: 3 };
  },
};

const deps = {
  views: createViews(),
  publicUrl: "http://checkout.test",
  now: () => NOW,
  identity: {
    async authenticate({ token }: { token: string }) {
      const person = PEOPLE[token];
      if (!person) throw refusal(Code.Unauthenticated, "SESSION_INVALID", "no session");
      return {
        principal: {
          kind: identityV1.PrincipalKind.HUMAN,
          identityUuid: person.uuid,
          transport: "cookie",
          permissions: person.permissions,
          csrfToken: `csrf-${token}`,
          actorAssertion: `pa1.${token}`,
          privileged: false,
          mfaSatisfied: false,
        },
      };
    },
  },
  merchants: {
    async listMemberships({ identityUuid }: { identityUuid: string }) {
      const person = Object.values(PEOPLE).find((p) => p.uuid === identityUuid)!;
      return { memberships: person.merchants.map((m) => ({ ...m, identityUuid })) };
    },
    async getMerchant({ uuid }: { uuid: string }) {
      return { merchant: { uuid, displayName: uuid === MERCHANT ? "Hook Shop" : "Other Shop" } };
    },
  },
  notifications,
  allocation: { getReadiness: async () => ({ pairs: [] }) },
  payins: { listCheckoutSessions: async () => ({ sessions: [], total: 0n }), listPayInIntents: async () => ({ intents: [], total: 0n }) },
} as unknown as WebhooksDeps & DashboardDeps;

let server: ReturnType<Koa["listen"]>;
let base = "";

beforeAll(async () => {
  const app = new Koa();
  app.use(pageErrorMiddleware(createLogger("test", {}, new Writable({ write: (_c, _e, done) => done() })), deps.views));
  for (const router of [webhookRoutes(deps), dashboardRoutes(deps)]) {
    app.use(router.routes());
    app.use(router.allowedMethods({ throw: false }));
  }
  server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  calls.length = 0;
  endpoints = [];
  deliveries = [];
  endpointLimit = 10;
});

async function get(path: string, who = "admin") {
  const res = await fetch(base + path, { headers: { cookie: `__Host-payin_checkout=${who}` }, redirect: "manual" });
  return { status: res.status, text: await res.text(), location: res.headers.get("location") };
}

async function post(path: string, fields: [string, string][], who = "admin", options: { csrf?: string | null; merchant?: string } = {}) {
  const form = new URLSearchParams(fields);
  if (options.csrf !== null) form.set("csrf_token", options.csrf ?? `csrf-${who}`);
  form.set("merchant_uuid", options.merchant ?? MERCHANT);
  const res = await fetch(base + path, {
    method: "POST",
    headers: { cookie: `__Host-payin_checkout=${who}`, "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
    redirect: "manual",
  });
  return { status: res.status, text: await res.text(), location: res.headers.get("location") };
}

const text = (html: string) => html.replace(/<[^>]*>/g, " ").replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/\s+/g, " ");

describe("the webhooks overview", () => {
  it("lists the endpoints with their types and state, and says why and when the platform disabled one", async () => {
    const failing = endpointOf({ url: "https://a.example.com/x", enabled: false, disabledReason: "failing", disabledAt: toTimestamp(new Date("2026-11-26T08:15:00Z")) });
    const gone = endpointOf({ url: "https://b.example.com/y", enabled: false, disabledReason: "gone", disabledAt: toTimestamp(new Date("2026-11-25T10:00:00Z")), eventTypes: ["pay_in_intent.paid"] });
    const healthy = endpointOf({ url: "https://c.example.com/z", description: "ERP <sync>" });
    endpoints.push(failing, gone, healthy);
    const page = await get("/merchant/webhooks");
    expect(page.status).toBe(200);
    const body = text(page.text);
    expect(body).toContain("Disabled: deliveries kept failing.");
    expect(body).toContain("Every delivery to it failed for 5 days");
    expect(body).toContain("2026-11-26 08:15 UTC");
    expect(body).toContain("Disabled: your receiver said this address is gone.");
    expect(body).toContain("2026-11-25 10:00 UTC");
    expect(body).toContain("pay_in_intent.paid");
    expect(body).toContain("Every event type");
    expect(page.text).toContain("ERP &lt;sync&gt;");
    expect(page.text).toContain('href="/merchant/webhooks" aria-current="page"');
  });

  it("refuses a person without webhook.manage (403), and shows them no webhooks link", async () => {
    endpoints.push(endpointOf({}));
    const page = await get("/merchant/webhooks", "member");
    expect(page.status).toBe(403);
    expect(text(page.text)).toContain("does not let you see or manage this merchant's webhooks");
    expect(page.text).not.toContain('href="/merchant/webhooks"');
    expect(page.text).not.toContain("hooks.example.com");
    const created = await post("/merchant/webhooks/new", [["url", "https://x.example.com/"]], "member");
    expect(created.status).toBe(403);
    expect(calls).toEqual([]);
  });

  it("says on the area's overview when the platform disabled an endpoint or deliveries fail, to those who manage webhooks", async () => {
    expect(await get("/merchant").then((page) => page.text)).not.toContain('id="webhooks-attention"');
    endpoints.push(endpointOf({ enabled: false, disabledReason: "failing" }), endpointOf({ failingSince: toTimestamp(NOW) }), endpointOf({ enabled: false }));
    const overview = await get("/merchant");
    expect(overview.status).toBe(200);
    const body = text(overview.text);
    expect(body).toContain("1 endpoint was disabled by the platform");
    expect(body).toContain("Deliveries to 1 endpoint are failing");
    const memberOverview = await get("/merchant", "member");
    expect(memberOverview.status).toBe(200);
    expect(memberOverview.text).not.toContain('id="webhooks-attention"');
  });

  it("sends a visitor without a session to the sign-in page", async () => {
    const res = await get("/merchant/webhooks", "nobody");
    expect(res.status).toBe(303);
    expect(res.location).toBe("/merchant/login");
  });
});

describe("adding an endpoint", () => {
  it("offers every event type but webhook.test, and shows the secret once, with a copy button for script-enabled browsers", async () => {
    const form = await get("/merchant/webhooks/new");
    expect(form.status).toBe(200);
    expect(form.text).toContain('value="pay_in_intent.transfer_flagged"');
    expect(form.text).not.toContain('value="webhook.test"');
    const res = await post("/merchant/webhooks/new", [
      ["url", " https://hooks.example.com/payin "],
      ["scope", "some"],
      ["event_type", "pay_in_intent.paid"],
      ["event_type", "checkout.paid"],
      ["description", "Orders"],
    ]);
    expect(res.status).toBe(201);
    expect(res.text).toContain(SECRET);
    expect(text(res.text)).toContain("This secret is shown only once.");
    expect(res.text).toMatch(/<button type="button" class="secondary copy-button" data-copy="whsec_[^"]+" data-copied="Secret copied" data-js-only hidden>Copy secret<\/button>/);
    expect(res.text).toContain('<script src="/hosted-checkout/status.js" defer></script>');
    expect(calls).toEqual([
      { method: "create", request: { merchantUuid: MERCHANT, url: "https://hooks.example.com/payin", eventTypes: ["pay_in_intent.paid", "checkout.paid"], description: "Orders", actorAssertion: "pa1.admin" } },
    ]);
    const uuid = endpoints[0]!.endpointUuid;
    for (const path of ["/merchant/webhooks", `/merchant/webhooks/${uuid}`, `/merchant/webhooks/${uuid}/edit`, `/merchant/webhooks/${uuid}/delete`]) {
      const page = await get(path);
      expect(page.status, path).toBe(200);
      expect(page.text, path).not.toContain(SECRET);
      expect(page.text, path).not.toContain("whsec_");
    }
  });

  it("subscribes to every type when asked, ignoring ticks", async () => {
    const res = await post("/merchant/webhooks/new", [["url", "https://hooks.example.com/all"], ["scope", "all"], ["event_type", "checkout.paid"]]);
    expect(res.status).toBe(201);
    expect(calls[0]!.request.eventTypes).toEqual([]);
  });

  it("shows the form's own refusals field by field, keeping what was typed, and sends nothing", async () => {
    const res = await post("/merchant/webhooks/new", [
      ["url", "ftp://files.example.com/<x>"],
      ["scope", "some"],
      ["description", "d".repeat(201)],
    ]);
    expect(res.status).toBe(400);
    const body = text(res.text);
    expect(body).toContain("Enter a full web address starting with https://");
    expect(body).toContain("Tick at least one event type");
    expect(body).toContain("at most 200 characters");
    expect(res.text).toContain('value="ftp://files.example.com/&lt;x&gt;"');
    expect(res.text).toMatch(/id="scope-some" name="scope" value="some" checked/);
    const unknown = await post("/merchant/webhooks/new", [["url", "https://a.example.com/"], ["scope", "some"], ["event_type", "webhook.test"]]);
    expect(unknown.status).toBe(400);
    expect(text(unknown.text)).toContain("Choose among the event types offered.");
    expect(calls).toEqual([]);
  });

  it("shows the service's refusal of the URL next to it, and the endpoint limit on the form (409)", async () => {
    const res = await post("/merchant/webhooks/new", [["url", "https://10.0.0.1/hook"], ["scope", "some"], ["event_type", "checkout.paid"], ["description", "Mine"]]);
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/id="url-error">The host 10\.0\.0\.1 resolves to a refused address: 10\.0\.0\.1 is not a public address \(private\)\.</);
    expect(res.text).toContain('value="https://10.0.0.1/hook"');
    expect(res.text).toContain('value="Mine"');
    expect(res.text).toMatch(/id="type-checkout-paid" name="event_type" value="checkout.paid" checked/);
    endpointLimit = 0;
    const limited = await post("/merchant/webhooks/new", [["url", "https://ok.example.com/"]]);
    expect(limited.status).toBe(409);
    expect(text(limited.text)).toContain("A merchant has at most 0 webhook endpoints: delete one first.");
    expect(endpoints).toEqual([]);
  });

  it("refuses a form without the session's CSRF token (403) or shown for another merchant (409), sending nothing", async () => {
    expect((await post("/merchant/webhooks/new", [["url", "https://a.example.com/"]], "admin", { csrf: null })).status).toBe(403);
    expect((await post("/merchant/webhooks/new", [["url", "https://a.example.com/"]], "admin", { csrf: "csrf-member" })).status).toBe(403);
    const stale = await post("/merchant/webhooks/new", [["url", "https://a.example.com/"]], "admin", { merchant: OTHER_MERCHANT });
    expect(stale.status).toBe(409);
    expect(text(stale.text)).toContain("This form was for another merchant account");
    expect(calls).toEqual([]);
  });
});

describe("an endpoint's page", () => {
  it("shows its details and its delivery log newest first, with every attempt, paginated", async () => {
    const endpoint = endpointOf({ failingSince: toTimestamp(new Date("2026-11-27T06:00:00Z")) });
    endpoints.push(endpoint);
    const many = Array.from({ length: 23 }, (_, i) =>
      deliveryOf(endpoint.endpointUuid, {
        attemptCount: 2,
        attempts: [
          { attemptedAt: toTimestamp(new Date("2026-11-27T10:00:00Z")), statusCode: 0, durationMs: 15000, responseExcerpt: "", error: "timeout" },
          { attemptedAt: toTimestamp(new Date("2026-11-27T10:00:05Z")), statusCode: 503, durationMs: 12, responseExcerpt: `busy ${i} <script>`, error: "" },
        ] as notificationsV1.DeliveryAttempt[],
        status: i === 0 ? "pending" : "failed",
        nextAttemptAt: toTimestamp(new Date("2026-11-27T12:05:00Z")),
      }),
    );
    deliveries.push(...many);
    const page = await get(`/merchant/webhooks/${endpoint.endpointUuid.toUpperCase()}`);
    expect(page.status).toBe(200);
    const body = text(page.text);
    expect(body).toContain("every delivery has failed since 2026-11-27 06:00 UTC");
    expect(body).toMatch(/Attempt 1, 2026-11-27 10:00:00 UTC ?: no answer in 15000 ms/);
    expect(body).toMatch(/Attempt 2, 2026-11-27 10:00:05 UTC ?: HTTP 503 in 12 ms/);
    expect(body).toContain("Error: timeout");
    expect(body).toContain("HTTP 503 in 12 ms");
    expect(page.text).toContain("busy 0 &lt;script&gt;");
    expect(body).toContain("Waiting for its next attempt");
    expect(body).toContain("next at 2026-11-27 12:05 UTC");
    expect(page.text).toContain(`href="/merchant/webhooks/events/${many[0]!.eventUuid}"`);
    expect(page.text.match(/class="card delivery"/g)).toHaveLength(20);
    expect(page.text).toContain(`?before=${many[19]!.deliveryUuid}`);
    const older = await get(`/merchant/webhooks/${endpoint.endpointUuid}?before=${many[19]!.deliveryUuid}`);
    expect(older.status).toBe(200);
    expect(older.text.match(/class="card delivery"/g)).toHaveLength(3);
    expect(older.text).toContain("Newest deliveries");
    expect(older.text).not.toContain("?before=");
    expect((await get(`/merchant/webhooks/${endpoint.endpointUuid}?before=nope`)).status).toBe(400);
  });

  it("answers a readable 404 for a malformed or unknown endpoint, on pages and forms alike", async () => {
    for (const path of ["/merchant/webhooks/not-a-uuid", `/merchant/webhooks/${uuidNo(4242)}`, `/merchant/webhooks/${uuidNo(4242)}/edit`, `/merchant/webhooks/${uuidNo(4242)}/delete`, "/merchant/webhooks/events/zzz", `/merchant/webhooks/events/${uuidNo(4243)}`]) {
      const page = await get(path);
      expect(page.status, path).toBe(404);
      expect(text(page.text), path).toMatch(/There is no such (webhook endpoint|event) in your merchant account/);
    }
    for (const action of ["rotate", "delete", "test", "enabled", "edit"]) {
      const res = await post(`/merchant/webhooks/${uuidNo(4242)}/${action}`, [["enabled", "true"], ["url", "https://a.example.com/"]]);
      expect(res.status, action).toBe(404);
    }
    expect((await post("/merchant/webhooks/..%2Fnew/rotate", [])).status).toBe(404);
  });

  it("saves an edit (URL, types, description, enabled) as the person, and shows a refused edit with what was typed", async () => {
    const endpoint = endpointOf({ eventTypes: ["checkout.paid"] });
    endpoints.push(endpoint);
    const form = await get(`/merchant/webhooks/${endpoint.endpointUuid}/edit`);
    expect(form.text).toMatch(/id="type-checkout-paid" name="event_type" value="checkout.paid" checked/);
    expect(form.text).toMatch(/id="enabled-true" name="enabled" value="true" checked/);
    const saved = await post(`/merchant/webhooks/${endpoint.endpointUuid}/edit`, [
      ["url", "https://new.example.com/h"],
      ["scope", "all"],
      ["description", "New"],
      ["enabled", "false"],
    ]);
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`/merchant/webhooks/${endpoint.endpointUuid}?notice=updated`);
    expect(calls).toEqual([
      {
        method: "update",
        request: { merchantUuid: MERCHANT, endpointUuid: endpoint.endpointUuid, url: "https://new.example.com/h", eventTypes: { types: [] }, description: "New", enabled: false, actorAssertion: "pa1.admin" },
      },
    ]);
    const bad = await post(`/merchant/webhooks/${endpoint.endpointUuid}/edit`, [["url", "https://10.0.0.1/"], ["scope", "all"], ["enabled", "true"]]);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('value="https://10.0.0.1/"');
    expect(text(bad.text)).toContain("Not saved: please check the form");
    const noChoice = await post(`/merchant/webhooks/${endpoint.endpointUuid}/edit`, [["url", "https://a.example.com/"]]);
    expect(noChoice.status).toBe(400);
  });

  it("enables and disables with one button", async () => {
    const endpoint = endpointOf({ enabled: false, disabledReason: "gone" });
    endpoints.push(endpoint);
    const page = await get(`/merchant/webhooks/${endpoint.endpointUuid}`);
    expect(page.text).toContain("Enable endpoint");
    const res = await post(`/merchant/webhooks/${endpoint.endpointUuid}/enabled`, [["enabled", "true"]]);
    expect(res.location).toBe(`/merchant/webhooks/${endpoint.endpointUuid}?notice=enabled`);
    expect(calls[0]!.request).toEqual({ merchantUuid: MERCHANT, endpointUuid: endpoint.endpointUuid, enabled: true, actorAssertion: "pa1.admin" });
    expect((await post(`/merchant/webhooks/${endpoint.endpointUuid}/enabled`, [["enabled", "maybe"]])).status).toBe(400);
  });

  it("rotates the secret, showing the new one once and until when the old one signs", async () => {
    const endpoint = endpointOf({});
    endpoints.push(endpoint);
    const res = await post(`/merchant/webhooks/${endpoint.endpointUuid}/rotate`, []);
    expect(res.status).toBe(200);
    expect(res.text).toContain(ROTATED);
    expect(text(res.text)).toContain("The previous secret keeps signing beside this one until 2026-11-28 12:00 UTC");
    const page = await get(`/merchant/webhooks/${endpoint.endpointUuid}`);
    expect(page.text).not.toContain(ROTATED);
    expect(text(page.text)).toContain("The previous secret also signs until 2026-11-28 12:00 UTC");
  });

  it("deletes after a confirmation page", async () => {
    const endpoint = endpointOf({});
    endpoints.push(endpoint);
    const confirm = await get(`/merchant/webhooks/${endpoint.endpointUuid}/delete`);
    expect(text(confirm.text)).toContain("Delete this endpoint?");
    expect(calls).toEqual([]);
    const res = await post(`/merchant/webhooks/${endpoint.endpointUuid}/delete`, []);
    expect(res.location).toBe("/merchant/webhooks?notice=deleted");
    expect(endpoints).toEqual([]);
    expect(text((await get("/merchant/webhooks?notice=deleted")).text)).toContain("The endpoint was deleted.");
  });

  it("sends a test event and names it; a disabled endpoint is refused readably (409)", async () => {
    const endpoint = endpointOf({});
    endpoints.push(endpoint);
    const res = await post(`/merchant/webhooks/${endpoint.endpointUuid}/test`, []);
    expect(res.status).toBe(303);
    const eventUuid = deliveries[0]!.eventUuid;
    expect(res.location).toBe(`/merchant/webhooks/${endpoint.endpointUuid}?notice=test_sent&event=${eventUuid}`);
    const page = await get(res.location!);
    expect(text(page.text)).toContain("A test event (webhook.test) was sent");
    expect(page.text).toContain(`<code class="mono">webhook.test</code>`);
    // The test event's page: not among the merchant's events, but its delivery is shown.
    const eventPage = await get(`/merchant/webhooks/events/${eventUuid}`);
    expect(eventPage.status).toBe(200);
    expect(text(eventPage.text)).toContain("A test event: it was sent to one endpoint only.");
    endpoint.enabled = false;
    const refused = await post(`/merchant/webhooks/${endpoint.endpointUuid}/test`, []);
    expect(refused.status).toBe(409);
    expect(text(refused.text)).toContain("Enable it first");
  });

  it("resends one delivery, and every failed one since a time (UTC); a bad time is shown on the form", async () => {
    const endpoint = endpointOf({});
    endpoints.push(endpoint);
    const delivery = deliveryOf(endpoint.endpointUuid);
    deliveries.push(delivery);
    const one = await post(`/merchant/webhooks/${endpoint.endpointUuid}/resend`, [["event_uuid", delivery.eventUuid], ["back", "endpoint"]]);
    expect(one.location).toBe(`/merchant/webhooks/${endpoint.endpointUuid}?notice=resent`);
    expect(calls[0]).toEqual({ method: "resend", request: { merchantUuid: MERCHANT, eventUuid: delivery.eventUuid, endpointUuid: endpoint.endpointUuid, actorAssertion: "pa1.admin" } });
    const back = await post(`/merchant/webhooks/${endpoint.endpointUuid}/resend`, [["event_uuid", delivery.eventUuid], ["back", "event"]]);
    expect(back.location).toBe(`/merchant/webhooks/events/${delivery.eventUuid}?notice=resent`);
    expect((await post(`/merchant/webhooks/${endpoint.endpointUuid}/resend`, [["event_uuid", "x"]])).status).toBe(404);
    expect((await post(`/merchant/webhooks/${endpoint.endpointUuid}/resend`, [["event_uuid", uuidNo(777)]])).status).toBe(404);

    calls.length = 0;
    const failed = await post(`/merchant/webhooks/${endpoint.endpointUuid}/resend-failed`, [["since", "2026-11-26T09:30"]]);
    expect(failed.location).toBe(`/merchant/webhooks/${endpoint.endpointUuid}?notice=resent_failed&count=3`);
    expect(fromTimestamp(calls[0]!.request.since as never)?.toISOString()).toBe("2026-11-26T09:30:00.000Z");
    expect(text((await get(failed.location!)).text)).toContain("3 failed deliveries are being sent again.");
    for (const since of ["yesterday", "2026-02-30T10:00", "2027-01-01T00:00", ""]) {
      const bad = await post(`/merchant/webhooks/${endpoint.endpointUuid}/resend-failed`, [["since", since]]);
      expect(bad.status, since).toBe(400);
      expect(text(bad.text), since).toContain("Enter a date and time in UTC that is not in the future");
    }
    expect(calls).toHaveLength(1);
  });
});

describe("an event's page", () => {
  it("lists its deliveries to every endpoint, each with a resend, and resends to all", async () => {
    const first = endpointOf({ url: "https://one.example.com/" });
    const second = endpointOf({ url: "https://two.example.com/" });
    endpoints.push(first, second);
    const a = deliveryOf(first.endpointUuid, { status: "succeeded", attempts: [{ attemptedAt: toTimestamp(NOW), statusCode: 204, durationMs: 5, responseExcerpt: "", error: "" }] as notificationsV1.DeliveryAttempt[] });
    const b = deliveryOf(second.endpointUuid, { eventUuid: a.eventUuid });
    deliveries.push(a, b);
    const page = await get(`/merchant/webhooks/events/${a.eventUuid}`);
    expect(page.status).toBe(200);
    const body = text(page.text);
    expect(body).toContain("https://one.example.com/");
    expect(body).toContain("https://two.example.com/");
    expect(body).toContain("Delivered");
    expect(body).toContain("HTTP 204 in 5 ms");
    expect(body).toContain("Sequence 4");
    expect(page.text).toContain(`action="/merchant/webhooks/${second.endpointUuid}/resend"`);
    const all = await post(`/merchant/webhooks/events/${a.eventUuid}/resend`, []);
    expect(all.location).toBe(`/merchant/webhooks/events/${a.eventUuid}?notice=resent`);
    expect(calls[0]!.request).toEqual({ merchantUuid: MERCHANT, eventUuid: a.eventUuid, endpointUuid: "", actorAssertion: "pa1.admin" });
  });
});
