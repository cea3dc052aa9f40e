import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import type Router from "@koa/router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "@payin/logging";
import { PUBLIC_ERRORS } from "@payin/http/errors";
import { ASSETS, RAIL_FOR_ASSET } from "@payin/money";
import { IDENTITY_STATUSES, PERMISSIONS, ROLES } from "@payin/permissions";
import {
  allocationV1, identityV1, MERCHANT_STATUS_NAMES, merchantsV1, notificationsV1, PAY_IN_STATUS_NAMES, payinsV1, READINESS_REASON_NAMES, TRANSFER_STATE_NAMES,
} from "@payin/proto";
import { createServiceClient, REQUEST_ID_PATTERN, toTimestamp } from "@payin/rpc";
import { create } from "@bufbuild/protobuf";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { checkoutView, EVENT_TYPE_INFO, EVENT_TYPES, eventData, intentReadView, transferView, webhookBody, type EventFacts, type EventType } from "@payin/events";
import { createApp, type AppDeps } from "../app.js";
import { Authenticator, type HumanPrincipal, type Principal } from "../auth/authenticator.js";
import { testPerson } from "../auth/test-principals.js";
import { documentedOperations, openApiDocument } from "./document.js";
import { eventSchemaName, webhookSchemaName } from "./events.js";

const doc = openApiDocument() as any;

/**
 * The app on service clients that reach nothing, with `auth` in place of the
 * authenticator when given, and `merchants` in place of its client.
 */
function appWith(auth?: Pick<Authenticator, "authenticate" | "authenticateHuman">, merchants?: Partial<AppDeps["merchants"]>) {
  const options = { baseUrl: "http://127.0.0.1:9", serviceToken: "x".repeat(32) };
  const identity = createServiceClient(identityV1.IdentityService, options);
  const merchantsClient = createServiceClient(merchantsV1.MerchantsService, options);
  return createApp({
    logger: createLogger("test", { level: "silent" }),
    auth: (auth ?? new Authenticator(identity, 0)) as AppDeps["auth"],
    identity,
    payins: createServiceClient(payinsV1.PayinsService, options),
    merchants: { ...merchantsClient, ...merchants },
    allocation: createServiceClient(allocationV1.AllocationService, options),
    notifications: createServiceClient(notificationsV1.NotificationsService, options),
  });
}

/** "METHOD /path" of every route the app serves, read from its routers. */
function servedOperations(): string[] {
  const served = new Set<string>();
  for (const middleware of appWith().middleware) {
    const router = (middleware as { router?: Router }).router;
    for (const layer of router?.stack ?? []) {
      const path = String(layer.path).replace(/:(\w+)/g, "{$1}").replace(/\/$/, "");
      for (const method of layer.methods) if (method !== "HEAD") served.add(`${method} ${path}`);
    }
  }
  return [...served].sort();
}

/** Every operation object of the document, by "METHOD /path". */
function operations(): [string, any][] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, any]),
  );
}

/** The names of an operation's query parameters, references resolved. */
function documentedQuery(op: any): string[] {
  return (op.parameters as any[])
    .map((p) => (p.$ref ? doc.components.parameters[String(p.$ref).split("/").pop()!] : p))
    .filter((p) => p.in === "query")
    .map((p) => p.name as string)
    .sort();
}

describe("OpenAPI document", () => {
  it("documents exactly the routes the gateway serves", () => {
    expect(servedOperations()).toEqual(documentedOperations().sort());
  });

  it("is OpenAPI 3.1 with resolvable references and a license", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.license).toMatchObject({ name: expect.any(String), identifier: expect.any(String) });
    // The contract: the platform API description carries version 0.8.0.
    expect(doc.info.version).toBe("0.8.0");
    for (const [, kind, name] of JSON.stringify(doc).matchAll(/"#\/components\/(\w+)\/(\w+)"/g)) {
      expect(doc.components[kind!], `${kind}/${name}`).toHaveProperty(name!);
    }
  });

  it("gives every operation a unique camelCase operationId, a declared tag and a summary", () => {
    const declared = (doc.tags as { name: string; description: string }[]).map((t) => t.name);
    const ids = operations().map(([key, op]) => {
      expect(op.operationId, key).toMatch(/^[a-z][a-zA-Z0-9]*$/);
      expect(op.tags, key).toHaveLength(1);
      expect(declared, key).toContain(op.tags[0]);
      expect(op.summary, key).toEqual(expect.any(String));
      return op.operationId as string;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("documents the error body, 500 and 503 on every operation that calls a service, and 413 and 415 on every one that reads a body", () => {
    for (const [key, op] of operations()) {
      if (key === "GET /health" || key === "GET /api/v1/openapi.json") continue;
      expect(Object.keys(op.responses), key).toEqual(expect.arrayContaining(["400", "500", "503"]));
      if (op.requestBody) expect(Object.keys(op.responses), key).toEqual(expect.arrayContaining(["413", "415"]));
      if (op.security === undefined) expect(Object.keys(op.responses), key).toEqual(expect.arrayContaining(["401"]));
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        if (Number(status) < 400) continue;
        const resolved = doc.components.responses[String(response.$ref).split("/").pop()!];
        expect(resolved?.content["application/json"].schema, `${key} ${status}`).toEqual({ $ref: "#/components/schemas/Error" });
      }
    }
  });

  it("names the new resource in Location on every 201", () => {
    for (const [key, op] of operations()) {
      const created = op.responses["201"];
      if (created) expect(created.headers?.Location, key).toMatchObject({ required: true });
    }
  });

  it("gives the known value sets as enums from the code that decides them", () => {
    const schema = (name: string) => doc.components.schemas[name];
    expect(schema("Error").properties.error.properties.code.enum).toEqual(Object.keys(PUBLIC_ERRORS));
    expect(schema("Error").properties.error.properties.code.enum).toContain("PAYIN_NOT_READY");
    for (const name of ["PayInIntent", "PayInIntentListItem"]) {
      expect(schema(name).properties.status.enum, name).toEqual([...PAY_IN_STATUS_NAMES]);
      expect(schema(name).properties.asset.enum, name).toEqual([...ASSETS]);
      expect(schema(name).properties.rail.enum, name).toEqual([...new Set(Object.values(RAIL_FOR_ASSET))]);
    }
    expect(schema("PayInTransfer").properties.state.enum).toEqual([...TRANSFER_STATE_NAMES]);
    expect(schema("Merchant").properties.status.enum).toEqual([...MERCHANT_STATUS_NAMES]);
    expect(schema("Identity").properties.status.enum).toEqual([...IDENTITY_STATUSES]);
    expect(schema("Identity").properties.roles.items.enum).toEqual([...ROLES]);
    const pair = schema("ReadinessEnvelope").properties.readiness.properties.pairs.items;
    expect(pair.properties.reasons.items.enum).toEqual([...READINESS_REASON_NAMES]);
  });

  it("gives X-Request-Id on every answer, takes it on every request, and X-CSRF-Token on every state-changing operation that takes a credential", () => {
    for (const [key, op] of operations()) {
      const params = (op.parameters as any[]).map((p) => (p.$ref ? doc.components.parameters[String(p.$ref).split("/").pop()!] : p));
      expect(params.map((p) => p.name), key).toContain("X-Request-Id");
      const needsCsrf = !key.startsWith("GET ") && op.security === undefined;
      expect(params.some((p) => p.name === "X-CSRF-Token"), key).toBe(needsCsrf);
      for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
        const resolved = response.$ref ? doc.components.responses[String(response.$ref).split("/").pop()!] : response;
        expect(resolved.headers?.["X-Request-Id"], `${key} ${status}`).toEqual({ $ref: "#/components/headers/RequestId" });
      }
    }
    expect(doc.components.headers.RequestId.schema.pattern).toBe(REQUEST_ID_PATTERN.source);
  });

  it("offers the two security schemes as alternatives, each saying never to send both", () => {
    expect(doc.security).toEqual([{ bearer: [] }, { session: [] }]);
    for (const scheme of Object.values(doc.components.securitySchemes) as { description: string }[]) {
      expect(scheme.description).toMatch(/AUTH_AMBIGUOUS/);
    }
  });

  it("gives login both of its 200 answers: a session, or an MFA challenge", () => {
    const schema = doc.paths["/api/v1/auth/login"].post.responses["200"].content["application/json"].schema;
    const resolve = (s: any) => (s.$ref ? doc.components.schemas[s.$ref.split("/").pop()] : s);
    const shapes = (resolve(schema).oneOf as any[]).map(resolve).map((s) => s.properties.status.enum);
    expect(shapes).toEqual([["authenticated"], ["mfa_required"]]);
  });
});

/**
 * Each route, asked with a query parameter no route takes, refuses it naming the
 * ones it accepts (readQuery): these must be exactly the documented ones. The
 * routes run on a stand-in authenticator that lets every request through (a
 * person holding every permission with recent MFA; on the pay-in routes the
 * path merchant's machine credential), so each reaches its query check, which
 * comes before any service call.
 */
describe("OpenAPI query parameters", () => {
  const MERCHANT = "01a2008d-7400-7000-8000-00000000000a";
  const person = testPerson();
  const machine: Principal = { kind: "machine", merchantUuid: MERCHANT, permissions: new Set(["merchant.payin.create", "merchant.payin.read"]), actorAssertion: "" };
  let server: http.Server;
  let base: string;

  // Webhook endpoints (and an event's deliveries and resend) refuse machine
  // credentials first: there the person, a platform admin, acts for a merchant
  // the stand-in merchants client says exists.
  const managedByPeople = (path: string) => /\/(webhook-endpoints|deliveries|resend)(\/|$)/.test(path);
  beforeAll(async () => {
    const app = appWith(
      {
        authenticate: async (ctx) => (ctx.path.startsWith("/api/v1/merchants/") && !managedByPeople(ctx.path) ? machine : person),
        authenticateHuman: async () => person,
      },
      { getMerchant: (async () => ({ merchant: { uuid: MERCHANT } })) as unknown as AppDeps["merchants"]["getMerchant"] },
    );
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it("are exactly the ones each route accepts", async () => {
    const checked: string[] = [];
    for (const [key, op] of operations()) {
      if (key === "GET /health" || key === "GET /api/v1/openapi.json") continue;
      const [method, template] = key.split(" ") as [string, string];
      const path = template.replace(/\{(\w+)\}/g, (_, name: string) => (name.endsWith("uuid") ? MERCHANT : "platform_admin"));
      const res = await fetch(`${base}${path}?zz_probe=1`, { method, headers: { "content-type": "application/json" }, body: method === "GET" ? undefined : "{}" });
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(res.status, `${key}: ${body.error?.message}`).toBe(400);
      const message = /^unknown query parameter "zz_probe"(?:; allowed: (.*))?$/.exec(body.error.message);
      expect(message, `${key}: ${body.error.message}`).not.toBeNull();
      const accepted = (message![1]?.split(", ") ?? []).sort();
      expect(documentedQuery(op), key).toEqual(accepted);
      checked.push(key);
    }
    expect(checked.length).toBe(operations().length - 2);
  });
});

/**
 * The admin routes declared as a table carry their permission and MFA in the
 * document (x-permission, x-mfa), from the declaration the handler checks too:
 * a person holding every permission but the documented one is refused 403
 * FORBIDDEN naming it; one whose MFA is not recent is refused
 * MFA_RECENT_REQUIRED exactly where the document says `recent`, and one that
 * never completed MFA MFA_REQUIRED where it says `recent` or `any` (elsewhere
 * the request goes on to its query check). Every check comes before any
 * service call.
 */
describe("OpenAPI permissions of the admin table", () => {
  const UUID = "01a2008d-7400-7000-8000-00000000000a";
  const person = (permissions: readonly string[], mfa: "recent" | "stale" | "none"): HumanPrincipal =>
    // Not privileged: without MFA the permission check alone would refuse (MFA_REQUIRED).
    testPerson({ privileged: false, mfaSatisfied: mfa !== "none", mfaAuthenticatedAt: mfa === "none" ? null : new Date(), mfaRecent: mfa === "recent" }, permissions);
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    const app = appWith({
      // The test names the principal: every permission but one (x-without), and its MFA.
      authenticate: async (ctx) => person(PERMISSIONS.filter((p) => p !== ctx.get("x-without")), ctx.get("x-mfa") as "recent" | "stale" | "none"),
      authenticateHuman: async () => person(PERMISSIONS, "recent"),
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  it("are what the handlers check", async () => {
    const declared = operations().filter(([, op]) => op["x-permission"] !== undefined);
    expect(declared.map(([key]) => key)).toContain("POST /api/v1/admin/merchants");
    for (const [key, op] of declared) {
      const [method, template] = key.split(" ") as [string, string];
      const url = `${base}${template.replace(/\{(\w+)\}/g, UUID)}?zz_probe=1`;
      const ask = async (headers: Record<string, string>) => {
        const res = await fetch(url, { method, headers: { "content-type": "application/json", ...headers }, body: method === "GET" ? undefined : "{}" });
        return { status: res.status, error: ((await res.json()) as { error: { code: string; message: string } }).error };
      };
      expect(await ask({ "x-without": op["x-permission"], "x-mfa": "recent" }), key).toEqual({
        status: 403,
        error: expect.objectContaining({ code: "FORBIDDEN", message: `this operation needs the permission ${op["x-permission"]}` }),
      });
      const probed = { status: 400, error: { code: "VALIDATION_ERROR", message: expect.stringMatching(/^unknown query parameter "zz_probe"/) } };
      expect(await ask({ "x-mfa": "recent" }), key).toMatchObject(probed);
      const stale = await ask({ "x-mfa": "stale" });
      if (op["x-mfa"] === "recent") expect(stale, key).toMatchObject({ status: 403, error: { code: "MFA_RECENT_REQUIRED" } });
      else expect(stale, key).toMatchObject(probed);
      const none = await ask({ "x-mfa": "none" });
      if (op["x-mfa"] === "none") expect(none, key).toMatchObject(probed);
      else expect(none, key).toMatchObject({ status: 403, error: { code: "MFA_REQUIRED" } });
    }
  });
});

/**
 * Every event type of the one catalogue (@payin/events) is documented under
 * the top-level `webhooks` (OpenAPI 3.1): its version and description, the
 * three Standard Webhooks headers, and a payload schema that an event built
 * by @payin/events for that type satisfies (as the events API's Event does).
 */
describe("OpenAPI webhooks", () => {
  const resolve = (schema: any) => (schema.$ref ? doc.components.schemas[String(schema.$ref).split("/").pop()!] : schema);
  const COMPONENTS_ID = "urn:payin:openapi-components";
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv as unknown as Parameters<typeof addFormats>[0]);
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', `"${COMPONENTS_ID}#/$defs/`)) });
  const validator = (name: string) => ajv.compile({ $ref: `${COMPONENTS_ID}#/$defs/${name}` });

  const at = toTimestamp(new Date("2030-01-02T03:04:05.678Z"));
  const intent = intentReadView(
    create(payinsV1.PayInIntentSchema, {
      intentUuid: "01a2008d-7400-7000-8000-000000000001",
      merchantUuid: "01a2008d-7400-7000-8000-00000000000a",
      status: payinsV1.PayInStatus.AWAITING_PAYMENT,
      asset: "usdt",
      rail: "bep20",
      expectedAmount: "10.5",
      address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      reference: "order-1",
      createdAt: at,
      expiresAt: at,
      updatedAt: at,
    }),
  );
  const transfer = transferView(
    create(payinsV1.PayInTransferSchema, {
      chainId: 97n,
      rail: "bep20",
      asset: "usdt",
      txHash: `0x${"ab".repeat(32)}`,
      logIndex: 3,
      blockNumber: 123n,
      blockTime: at,
      fromAddress: `0x${"cd".repeat(20)}`,
      amount: "10.5",
      state: payinsV1.TransferState.SETTLED,
    }),
  );
  const checkout = checkoutView(
    create(payinsV1.CheckoutSessionSchema, {
      checkoutUuid: "01a2008d-7400-7000-8000-000000000002",
      merchantUuid: "01a2008d-7400-7000-8000-00000000000a",
      state: payinsV1.CheckoutState.OPEN,
      amount: "25",
      pairs: [{ asset: "usdc", rail: "erc20" }],
      jurisdiction: "DE",
      paymentWindowSeconds: 3600,
      createdAt: at,
      updatedAt: at,
    }),
  );
  /** An event of `type` as the platform builds it, with what its catalogue entry says it carries. */
  function sampleEvent(type: EventType) {
    const info = EVENT_TYPE_INFO[type];
    const facts: EventFacts = { id: "01a2008d-7400-7000-8000-0000000000e1", type, createdAt: new Date("2030-01-02T03:04:05.678Z"), merchantUuid: intent.merchant_uuid, sequence: 4 };
    if (info.resource === "pay_in_intent") facts.intent = intent;
    if (info.resource === "checkout") facts.checkout = checkout;
    if (info.withTransfer) facts.transfer = transfer;
    if (type === "pay_in_intent.transfer_flagged") facts.flag = "late";
    if (type === "pay_in_intent.deadline_passed") Object.assign(facts, { outcome: "underpaid", receivedAmount: "4.25" });
    return eventData(facts);
  }

  it("has one entry per event type of the catalogue, and nothing else", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it("gives each type its version, description, the three Standard Webhooks headers and its payload schema", () => {
    const declared = (doc.tags as { name: string }[]).map((t) => t.name);
    for (const type of EVENT_TYPES) {
      const info = EVENT_TYPE_INFO[type];
      const op = doc.webhooks[type]?.post;
      expect(op, type).toBeDefined();
      expect(op["x-event-version"], type).toBe(info.version);
      expect(op.summary, type).toContain(type);
      expect(op.description, type).toContain(info.description);
      expect(declared, type).toContain(op.tags[0]);
      const headers = (op.parameters as any[]).map((p) => doc.components.parameters[String(p.$ref).split("/").pop()!]);
      expect(headers.map((h) => [h.name, h.in, h.required]), type).toEqual([
        ["webhook-id", "header", true],
        ["webhook-timestamp", "header", true],
        ["webhook-signature", "header", true],
      ]);
      const payload = resolve(op.requestBody.content["application/json"].schema);
      expect(op.requestBody.content["application/json"].schema, type).toEqual({ $ref: `#/components/schemas/${webhookSchemaName(type)}` });
      expect(Object.keys(payload.properties), type).toEqual(["type", "timestamp", "data"]);
      expect(payload.properties.type, type).toEqual({ type: "string", const: type });
      const data = resolve(payload.properties.data);
      expect(payload.properties.data, type).toEqual({ $ref: `#/components/schemas/${eventSchemaName(type)}` });
      expect(data.properties.type, type).toEqual({ type: "string", const: type });
      expect(data.properties.version.const, type).toBe(info.version);
      expect(data.required, type).toEqual(expect.arrayContaining(["id", "type", "version", "created_at", "merchant_uuid", "sequence"]));
      if (info.resource === "pay_in_intent") expect(data.properties.pay_in_intent.$ref, type).toBe("#/components/schemas/PayInIntent");
      if (info.withTransfer) expect(data.properties.transfer.$ref, type).toBe("#/components/schemas/PayInTransfer");
      if (info.resource === "checkout") expect(data.properties.checkout.$ref, type).toBe("#/components/schemas/Checkout");
    }
  });

  it("makes the events API's Event one of the types' data, each type once", () => {
    expect(doc.components.schemas.Event.oneOf).toEqual(EVENT_TYPES.map((type) => ({ $ref: `#/components/schemas/${eventSchemaName(type)}` })));
  });

  it("gives payload schemas that the events the platform builds satisfy, and that refuse another type's data", () => {
    const event = validator("Event");
    for (const type of EVENT_TYPES) {
      const data = sampleEvent(type);
      const body = JSON.parse(webhookBody(type, new Date(data.created_at), JSON.stringify(data)));
      const webhook = validator(webhookSchemaName(type));
      expect(webhook(body), `${type}: ${JSON.stringify(webhook.errors)}`).toBe(true);
      expect(event(data), `${type}: ${JSON.stringify(event.errors)}`).toBe(true);
      const other = EVENT_TYPES.find((t) => EVENT_TYPE_INFO[t].resource !== EVENT_TYPE_INFO[type].resource)!;
      expect(validator(eventSchemaName(other))(data), `${type} as ${other}`).toBe(false);
    }
  });
});

/** Redocly's CLI, run on the served document with its recommended rules. */
describe("OpenAPI lint", () => {
  it("finds no error, and no warning but a 4xx answer the gateway-only routes cannot give", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "openapi-lint-"));
    try {
      const file = path.join(dir, "openapi.json");
      await writeFile(file, JSON.stringify(doc));
      const cli = createRequire(import.meta.url).resolve("@redocly/cli/bin/cli.js");
      const output = await new Promise<string>((resolve, reject) => {
        execFile(
          process.execPath,
          [cli, "lint", file, "--format=json", "--extends=recommended"],
          { env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" }, timeout: 60_000, maxBuffer: 16 << 20 },
          (error, stdout, stderr) => {
            // The CLI exits 1 when it finds an error: the report says which.
            if (error && !stdout.includes("totals")) reject(new Error(`${error.message}\n${stderr}`));
            else resolve(stdout);
          },
        );
      });
      const report = JSON.parse(output.slice(output.indexOf("{"))) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
      };
      const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
      expect(report.totals.errors, problems.join("\n")).toBe(0);
      const allowed = ["#/paths/~1health/get/responses", "#/paths/~1api~1v1~1openapi.json/get/responses"];
      const unexpected = report.problems.filter((p) => !(p.ruleId === "operation-4xx-response" && allowed.includes(p.location[0]?.pointer ?? "")));
      expect(unexpected.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
