import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { uuidv7 } from "@payin/ids";
import { Code } from "@payin/rpc";
import { expectFailure } from "@payin/testing";
import { dnsServersLookup } from "../src/domain/webhook-url.js";
import { startDnsTestServer } from "../src/notifier/dns-test-server.js";
import { endpointSigningSecrets } from "../src/store/endpoint-secrets.js";
import { ASSERTIONS, intentEvent, jobKeys, personAssertion, SEALING_KEY, startNotifications, type Harness } from "./harness.js";

let h: Harness;

beforeAll(async () => {
  h = await startNotifications();
});
afterAll(async () => {
  await h?.close();
});

const URL_OK = "https://hooks.example.com/webhooks";
const count = async (table: string, where = "true", values: unknown[] = []) => Number((await h.rows<{ n: string }>(`select count(*) as n from ${table} where ${where}`, values))[0]!.n);
const secretsOf = (endpointUuid: string, at = new Date()) => endpointSigningSecrets(h.db, SEALING_KEY, endpointUuid, at);
const HOUR = 3600 * 1000;

describe("CreateWebhookEndpoint", () => {
  it("adds an endpoint and answers its whsec_ secret this once; reads never show it, and the table keeps it sealed", async () => {
    const m = uuidv7();
    const created = await h.client.createWebhookEndpoint({ merchantUuid: m, url: URL_OK, eventTypes: ["pay_in_intent.paid"], description: "Orders" });
    const { endpoint, secret } = created;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
    expect({ url: endpoint?.url, eventTypes: endpoint?.eventTypes, description: endpoint?.description, enabled: endpoint?.enabled, merchantUuid: endpoint?.merchantUuid }).toEqual({
      url: URL_OK,
      eventTypes: ["pay_in_intent.paid"],
      description: "Orders",
      enabled: true,
      merchantUuid: m,
    });
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const reads = [await h.client.getWebhookEndpoint({ merchantUuid: m, endpointUuid: endpoint!.endpointUuid }), await h.client.listWebhookEndpoints({ merchantUuid: m })];
    for (const read of reads) {
      const text = JSON.stringify(read, (_k, v: unknown) => (typeof v === "bigint" ? String(v) : v));
      expect(text).not.toContain(secret.slice("whsec_".length));
      expect(text).not.toContain(key.toString("hex"));
    }
    expect((reads[1] as { endpoints: unknown[] }).endpoints).toHaveLength(1);
    // At rest: sealed (AES-256-GCM), neither the key nor its text in the row.
    const [row] = await h.rows<{ secret_sealed: Buffer; text: string }>(`select secret_sealed, webhook_endpoints::text as text from webhook_endpoints where endpoint_uuid = $1`, [endpoint!.endpointUuid]);
    expect(row!.secret_sealed.includes(key)).toBe(false);
    expect(row!.text).not.toContain(secret.slice("whsec_".length));
    expect(row!.text).not.toContain(key.toString("hex"));
    // Opened for signing with the service's key only.
    expect(await secretsOf(endpoint!.endpointUuid)).toEqual([secret]);
    await expect(endpointSigningSecrets(h.db, randomBytes(32), endpoint!.endpointUuid, new Date())).rejects.toThrow();
    expect(await endpointSigningSecrets(h.db, SEALING_KEY, uuidv7(), new Date())).toBeNull();
  });

  it("refuses hostile input with a 400 reason, writing nothing (no endpoint, no audit record)", async () => {
    const m = uuidv7();
    const auditBefore = await count("audit_outbox");
    const urls = [
      "",
      "not a url",
      "hooks.example.com/webhooks",
      "http://hooks.example.com/webhooks",
      "ftp://hooks.example.com/",
      "https://user:pw@hooks.example.com/",
      "https://127.0.0.1/hook",
      "https://10.0.0.1/hook",
      "https://192.168.1.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://[fd00::1]/hook",
      "https://0.0.0.0/",
      "https://internal.example.com/hook",
      "https://unknown.example.com/hook",
      `https://hooks.example.com/${"a".repeat(2100)}`,
    ];
    for (const url of urls) {
      await expectFailure(h.client.createWebhookEndpoint({ merchantUuid: m, url }), Code.InvalidArgument, "WEBHOOK_URL_INVALID");
    }
    for (const eventTypes of [["pay_in_intent.nope"], ["webhook.test"], ["pay_in_intent.paid", "pay_in_intent.paid"], [""], Array.from({ length: 20 }, () => "checkout.paid")]) {
      await expectFailure(h.client.createWebhookEndpoint({ merchantUuid: m, url: URL_OK, eventTypes }), Code.InvalidArgument, "WEBHOOK_EVENT_TYPES_INVALID");
    }
    for (const description of ["x".repeat(201), "evil\u202Etxt", "two\nlines", "nul\u0000"]) {
      await expectFailure(h.client.createWebhookEndpoint({ merchantUuid: m, url: URL_OK, description }), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
    for (const merchantUuid of ["", "nope", m.toUpperCase()]) {
      await expectFailure(h.client.createWebhookEndpoint({ merchantUuid, url: URL_OK }), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
    expect(await count("webhook_endpoints", "merchant_uuid = $1", [m])).toBe(0);
    expect(await count("audit_outbox")).toBe(auditBefore);
    // 200 characters is fine.
    expect((await h.client.createWebhookEndpoint({ merchantUuid: m, url: URL_OK, description: "é".repeat(200) })).endpoint?.description).toHaveLength(200);
  });

  it("allows http and loopback where the local-development setting is on, never private or link-local addresses", async () => {
    const local = await startNotifications({ allowInsecureUrls: true });
    try {
      const m = uuidv7();
      for (const url of ["http://127.0.0.1:4000/hook", "http://[::1]:4000/hook", "http://hooks.example.com/hook"]) {
        expect((await local.client.createWebhookEndpoint({ merchantUuid: m, url })).endpoint?.url).toBe(url);
      }
      for (const url of ["http://10.0.0.1/hook", "https://169.254.169.254/", "http://192.168.0.10/", "http://internal.example.com/"]) {
        await expectFailure(local.client.createWebhookEndpoint({ merchantUuid: m, url }), Code.InvalidArgument, "WEBHOOK_URL_INVALID");
      }
    } finally {
      await local.close();
    }
  });

  it("resolves the URL's name with real DNS (WEBHOOK_DNS_SERVERS) and refuses names resolving to private, loopback or metadata addresses", async () => {
    const dns = await startDnsTestServer({
      "public.test": ["93.184.216.34"],
      "inside.test": ["10.20.30.40"],
      "meta.test": ["169.254.169.254"],
      "loop.test": ["127.0.0.1"],
      "mixed.test": ["93.184.216.34", "192.168.1.20"],
    });
    const resolved = await startNotifications({ lookup: dnsServersLookup([dns.address]) });
    try {
      const m = uuidv7();
      expect((await resolved.client.createWebhookEndpoint({ merchantUuid: m, url: "https://public.test/hook" })).endpoint?.url).toBe("https://public.test/hook");
      for (const url of ["https://inside.test/hook", "https://meta.test/latest/meta-data", "https://loop.test/hook", "https://mixed.test/hook", "https://nowhere.test/hook"]) {
        await expectFailure(resolved.client.createWebhookEndpoint({ merchantUuid: m, url }), Code.InvalidArgument, "WEBHOOK_URL_INVALID");
      }
      expect(await resolved.rows<{ n: string }>(`select count(*) as n from webhook_endpoints where merchant_uuid = $1`, [m])).toEqual([{ n: "1" }]);
    } finally {
      await resolved.close();
      await dns.close();
    }
  });

  it("keeps a merchant to its limit of endpoints (WEBHOOK_ENDPOINT_LIMIT), even when creates race; other merchants are not counted", async () => {
    const limited = await startNotifications({ endpointLimit: 2 });
    try {
      const m = uuidv7();
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => limited.client.createWebhookEndpoint({ merchantUuid: m, url: URL_OK })));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(2);
      await expectFailure(limited.client.createWebhookEndpoint({ merchantUuid: m, url: URL_OK }), Code.FailedPrecondition, "WEBHOOK_ENDPOINT_LIMIT");
      expect((await limited.client.listWebhookEndpoints({ merchantUuid: m })).endpoints).toHaveLength(2);
      expect((await limited.client.createWebhookEndpoint({ merchantUuid: uuidv7(), url: URL_OK })).endpoint).toBeDefined();
    } finally {
      await limited.close();
    }
  });
});

describe("the other endpoint operations", () => {
  it("updates URL, event types, description and enabled; enabling one the service disabled starts it afresh", async () => {
    const m = uuidv7();
    const { endpoint } = await h.client.createWebhookEndpoint({ merchantUuid: m, url: URL_OK, eventTypes: ["checkout.paid"] });
    const endpointUuid = endpoint!.endpointUuid;
    const changed = (await h.client.updateWebhookEndpoint({ merchantUuid: m, endpointUuid, url: "https://other.example.com/in", eventTypes: { types: [] }, description: "All" })).endpoint!;
    expect({ url: changed.url, eventTypes: changed.eventTypes, description: changed.description, enabled: changed.enabled }).toEqual({
      url: "https://other.example.com/in",
      eventTypes: [],
      description: "All",
      enabled: true,
    });
    // Fields not given stay.
    expect((await h.client.updateWebhookEndpoint({ merchantUuid: m, endpointUuid, description: "Still all" })).endpoint?.url).toBe("https://other.example.com/in");
    const off = (await h.client.updateWebhookEndpoint({ merchantUuid: m, endpointUuid, enabled: false })).endpoint!;
    expect({ enabled: off.enabled, disabledReason: off.disabledReason, disabledAt: off.disabledAt !== undefined }).toEqual({ enabled: false, disabledReason: "", disabledAt: true });
    // The notifier disables an endpoint that answered 410 (as the notifier writes it).
    await h.rows(`update webhook_endpoints set enabled = false, disabled_reason = 'gone', disabled_at = now(), failing_since = now() where endpoint_uuid = $1`, [endpointUuid]);
    expect((await h.client.getWebhookEndpoint({ merchantUuid: m, endpointUuid })).endpoint?.disabledReason).toBe("gone");
    const on = (await h.client.updateWebhookEndpoint({ merchantUuid: m, endpointUuid, enabled: true })).endpoint!;
    expect({ enabled: on.enabled, disabledReason: on.disabledReason, disabledAt: on.disabledAt, failingSince: on.failingSince }).toEqual({
      enabled: true,
      disabledReason: "",
      disabledAt: undefined,
      failingSince: undefined,
    });
    // A bad change is refused whole.
    await expectFailure(h.client.updateWebhookEndpoint({ merchantUuid: m, endpointUuid, url: "https://10.0.0.1/", description: "new" }), Code.InvalidArgument, "WEBHOOK_URL_INVALID");
    await expectFailure(h.client.updateWebhookEndpoint({ merchantUuid: m, endpointUuid, eventTypes: { types: ["nope"] } }), Code.InvalidArgument, "WEBHOOK_EVENT_TYPES_INVALID");
    expect((await h.client.getWebhookEndpoint({ merchantUuid: m, endpointUuid })).endpoint?.description).toBe("Still all");
  });

  it("rotates the secret: the new one answered once, the previous one signing beside it for the grace period", async () => {
    const m = uuidv7();
    const { endpoint, secret: first } = await h.client.createWebhookEndpoint({ merchantUuid: m, url: URL_OK });
    const endpointUuid = endpoint!.endpointUuid;
    const before = Date.now();
    const rotated = await h.client.rotateWebhookSecret({ merchantUuid: m, endpointUuid });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(first);
    const expires = Number(rotated.endpoint!.previousSecretExpiresAt!.seconds) * 1000;
    expect(expires).toBeGreaterThanOrEqual(before + 24 * HOUR - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 24 * HOUR + 1000);
    expect(await secretsOf(endpointUuid)).toEqual([rotated.secret, first]);
    expect(await secretsOf(endpointUuid, new Date(Date.now() + 25 * HOUR))).toEqual([rotated.secret]);
    // Again with no grace: the new one alone.
    const now = await h.client.rotateWebhookSecret({ merchantUuid: m, endpointUuid, graceSeconds: 0 });
    expect(now.endpoint?.previousSecretExpiresAt).toBeUndefined();
    expect(await secretsOf(endpointUuid)).toEqual([now.secret]);
    // At most 7 days.
    const week = await h.client.rotateWebhookSecret({ merchantUuid: m, endpointUuid, graceSeconds: 7 * 24 * 3600 });
    expect(await secretsOf(endpointUuid, new Date(Date.now() + 7 * 24 * HOUR - 60_000))).toEqual([week.secret, now.secret]);
    await expectFailure(h.client.rotateWebhookSecret({ merchantUuid: m, endpointUuid, graceSeconds: 7 * 24 * 3600 + 1 }), Code.InvalidArgument, "INVALID_ARGUMENT");
    expect(await secretsOf(endpointUuid)).toEqual([week.secret, now.secret]);
  });

  it("deletes an endpoint with its deliveries and their queued jobs", async () => {
    const m = uuidv7();
    const { endpoint } = await h.client.createWebhookEndpoint({ merchantUuid: m, url: URL_OK });
    const endpointUuid = endpoint!.endpointUuid;
    const events = [intentEvent(m, "pay_in_intent.created"), intentEvent(m, "pay_in_intent.created")];
    await h.client.recordEvents({ events });
    const deliveries = (await h.rows<{ delivery_uuid: string }>(`select delivery_uuid from deliveries where endpoint_uuid = $1`, [endpointUuid])).map((r) => r.delivery_uuid);
    expect(deliveries).toHaveLength(2);
    await h.client.deleteWebhookEndpoint({ merchantUuid: m, endpointUuid });
    await expectFailure(h.client.getWebhookEndpoint({ merchantUuid: m, endpointUuid }), Code.NotFound, "WEBHOOK_ENDPOINT_NOT_FOUND");
    await expectFailure(h.client.deleteWebhookEndpoint({ merchantUuid: m, endpointUuid }), Code.NotFound, "WEBHOOK_ENDPOINT_NOT_FOUND");
    expect(await count("deliveries", "endpoint_uuid = $1", [endpointUuid])).toBe(0);
    const keys = await jobKeys(h);
    for (const d of deliveries) expect(keys).not.toContain(`delivery:${d}`);
    // The events stay (they are the merchant's, not the endpoint's).
    expect((await h.client.listEvents({ merchantUuid: m, limit: 10 })).events).toHaveLength(2);
  });

  it("answers another merchant's endpoint, an unknown one and a malformed uuid as WEBHOOK_ENDPOINT_NOT_FOUND, changing nothing", async () => {
    const m = uuidv7();
    const other = uuidv7();
    const { endpoint } = await h.client.createWebhookEndpoint({ merchantUuid: m, url: URL_OK });
    const endpointUuid = endpoint!.endpointUuid;
    expect((await h.client.listWebhookEndpoints({ merchantUuid: other })).endpoints).toEqual([]);
    for (const [merchantUuid, id] of [
      [other, endpointUuid],
      [m, uuidv7()],
      [m, "nope"],
    ] as const) {
      for (const call of [
        () => h.client.getWebhookEndpoint({ merchantUuid, endpointUuid: id }),
        () => h.client.updateWebhookEndpoint({ merchantUuid, endpointUuid: id, enabled: false }),
        () => h.client.deleteWebhookEndpoint({ merchantUuid, endpointUuid: id }),
        () => h.client.rotateWebhookSecret({ merchantUuid, endpointUuid: id }),
        () => h.client.sendTestEvent({ merchantUuid, endpointUuid: id }),
        () => h.client.listDeliveries({ merchantUuid, endpointUuid: id, limit: 10 }),
        () => h.client.resendFailedDeliveries({ merchantUuid, endpointUuid: id, since: endpoint!.createdAt }),
      ]) {
        await expectFailure(call(), Code.NotFound, "WEBHOOK_ENDPOINT_NOT_FOUND");
      }
    }
    const still = (await h.client.getWebhookEndpoint({ merchantUuid: m, endpointUuid })).endpoint!;
    expect({ enabled: still.enabled, updatedAt: still.updatedAt }).toEqual({ enabled: true, updatedAt: endpoint!.updatedAt });
  });
});

describe("audit", () => {
  it("writes each change's record into the outbox with it, naming the person identity's assertion vouches for", async () => {
    const m = uuidv7();
    const person = uuidv7();
    const actorAssertion = personAssertion(person);
    const { endpoint } = await h.client.createWebhookEndpoint({ merchantUuid: m, url: URL_OK, actorAssertion });
    const endpointUuid = endpoint!.endpointUuid;
    await h.client.updateWebhookEndpoint({ merchantUuid: m, endpointUuid, description: "x", actorAssertion });
    await h.client.rotateWebhookSecret({ merchantUuid: m, endpointUuid, actorAssertion });
    const { event } = await h.client.sendTestEvent({ merchantUuid: m, endpointUuid, actorAssertion });
    await h.client.resendEvent({ merchantUuid: m, eventUuid: event!.eventUuid, actorAssertion });
    await h.client.resendFailedDeliveries({ merchantUuid: m, endpointUuid, since: endpoint!.createdAt, actorAssertion });
    await h.client.deleteWebhookEndpoint({ merchantUuid: m, endpointUuid, actorAssertion });
    const rows = await h.rows<{ action: string; target_type: string; target_uuid: string; actor_kind: string; actor_uuid: string }>(
      `select action, target_type, target_uuid, actor_kind, actor_uuid from audit_outbox where actor_uuid = $1 order by occurred_at, event_uuid`,
      [person],
    );
    expect(rows.map((r) => `${r.action} ${r.target_type}:${r.target_uuid === endpointUuid ? "endpoint" : r.target_uuid === event!.eventUuid ? "event" : r.target_uuid}`)).toEqual([
      "webhook_endpoint.create webhook_endpoint:endpoint",
      "webhook_endpoint.update webhook_endpoint:endpoint",
      "webhook_endpoint.rotate_secret webhook_endpoint:endpoint",
      "webhook_endpoint.test webhook_endpoint:endpoint",
      "event.resend event:event",
      "webhook_endpoint.resend_failed webhook_endpoint:endpoint",
      "webhook_endpoint.delete webhook_endpoint:endpoint",
    ]);
    expect(new Set(rows.map((r) => r.actor_kind))).toEqual(new Set(["identity"]));
  });

  it("refuses a change whose assertion does not verify, has expired, or vouches for a machine credential (FORBIDDEN), writing nothing", async () => {
    const m = uuidv7();
    const auditBefore = await count("audit_outbox");
    const expired = ASSERTIONS.sign({ kind: "identity", uuid: uuidv7(), permissions: [], mfaRecentUntil: null, expiresAt: Date.now() - 1000 });
    const machine = ASSERTIONS.sign({ kind: "machine_credential", uuid: uuidv7(), permissions: [], mfaRecentUntil: null, expiresAt: Date.now() + 60_000 });
    for (const actorAssertion of ["garbage", expired, machine, personAssertion().slice(0, -4) + "AAAA"]) {
      await expectFailure(h.client.createWebhookEndpoint({ merchantUuid: m, url: URL_OK, actorAssertion }), Code.PermissionDenied, "FORBIDDEN");
    }
    expect(await count("webhook_endpoints", "merchant_uuid = $1", [m])).toBe(0);
    expect(await count("audit_outbox")).toBe(auditBefore);
  });
});
