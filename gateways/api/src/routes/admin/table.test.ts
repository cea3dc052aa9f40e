import http from "node:http";
import type { AddressInfo } from "node:net";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorMiddleware, strictRouter } from "@payin/http";
import { createLogger } from "@payin/logging";
import { testPerson } from "../../auth/test-principals.js";
import type { AppDeps } from "../../deps.js";
import { bodySchema, mountAdminRoutes, type AdminRoute, type BodySpec } from "./table.js";

const person = testPerson();

const BODY: BodySpec = {
  name: "Probe",
  fields: {
    id: { uuid: true },
    kind: { min: 1, max: 8, oneOf: { values: ["a", "b"], message: "kind must be a or b", description: "a or b" } },
    note: { min: 1, max: 5, notBlank: true, optional: true },
    tags: { list: { maxItems: 2, items: { type: "string" } } },
  },
};

/** Routes that answer what they were given, checked by the table; no service is called. */
const ROUTES: readonly AdminRoute[] = [
  {
    method: "GET",
    path: "/probes",
    permission: "merchant.read",
    query: { closed: { kind: "boolean" }, country: { kind: "country" } },
    paged: true,
    doc: { id: "listProbes", tag: "merchants", summary: "probe", ok: { 200: null } },
    async read({ query, page }) {
      return { body: { query, page } };
    },
  },
  {
    method: "PUT",
    path: "/probes/{uuid}",
    permission: "merchant.manage",
    mfa: "recent",
    body: BODY,
    doc: { id: "putProbe", tag: "merchants", summary: "probe", ok: { 201: null } },
    async change({ param, checked }) {
      const { body, lists } = await checked();
      return { status: 201, location: `/probes/${param("uuid")}`, body: { body, lists } };
    },
  },
  {
    method: "POST",
    path: "/probes/{uuid}/forgetful",
    permission: "merchant.manage",
    body: "empty",
    doc: { id: "forgetfulProbe", tag: "merchants", summary: "probe", ok: { 200: null } },
    // A change that never runs its checks: refused as a fault, never answered.
    async change() {
      return { body: { done: true } };
    },
  },
];

describe("admin route table", () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    const app = new Koa();
    app.use(errorMiddleware(createLogger("test", { level: "silent" })));
    const router = strictRouter({ prefix: "/api/v1/admin" });
    const deps = { logger: createLogger("test", { level: "silent" }), auth: { authenticate: async () => person, forgetMerchant: () => {} } } as unknown as AppDeps;
    mountAdminRoutes(router, deps, ROUTES);
    app.use(router.routes());
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/admin`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  async function ask(method: string, path: string, body?: unknown) {
    const res = await fetch(`${base}${path}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, location: res.headers.get("location"), body: (await res.json()) as any };
  }

  it("checks the declared query parameters, their values and the page", async () => {
    expect((await ask("GET", "/probes?closed=true&country=DE&limit=5")).body).toEqual({ query: { closed: "true", country: "DE", limit: "5" }, page: { limit: 5, offset: 0 } });
    expect((await ask("GET", "/probes?open=1")).body.error.message).toBe('unknown query parameter "open"; allowed: closed, country, limit, offset');
    expect((await ask("GET", "/probes?closed=yes")).body.error).toMatchObject({ code: "VALIDATION_ERROR", message: "closed must be true or false" });
    expect((await ask("GET", "/probes?country=XX")).body.error.message).toBe("country must be an assigned ISO 3166-1 alpha-2 code in upper case, e.g. DE");
    expect((await ask("GET", "/probes?limit=0")).status).toBe(400);
  });

  it("checks the declared body: uuids in lower case, closed lists, optional fields, lists of strings", async () => {
    const id = "01A2008D-7400-7000-8000-00000000000D";
    const ok = await ask("PUT", "/probes/x", { id, kind: "a", tags: ["t"] });
    expect(ok).toEqual({ status: 201, location: "/probes/x", body: { body: { id: id.toLowerCase(), kind: "a" }, lists: { tags: ["t"] } } });
    for (const [body, message] of [
      [{ id, kind: "c", tags: [] }, "kind must be a or b"],
      [{ id: "nope", kind: "a", tags: [] }, "id must be a uuid"],
      [{ id, kind: "a", note: "  ", tags: [] }, "note must not be blank"],
      [{ id, kind: "a", tags: ["1", "2", "3"] }, "tags must have at most 2 items"],
      [{ id, kind: "a" }, "tags is required"],
      [{ id, kind: "a", tags: [], extra: 1 }, expect.stringMatching(/extra/)],
    ] as const) {
      expect((await ask("PUT", "/probes/x", body)).body.error, JSON.stringify(body)).toMatchObject({ code: "VALIDATION_ERROR", message });
    }
  });

  it("fails a change that answers without running its checks", async () => {
    expect(await ask("POST", "/probes/x/forgetful")).toMatchObject({ status: 500, body: { error: { code: "INTERNAL_ERROR" } } });
  });

  it("documents a body as it checks it", () => {
    expect(bodySchema(BODY)).toEqual({
      type: "object",
      additionalProperties: false,
      required: ["id", "kind", "tags"],
      properties: {
        id: { type: "string", format: "uuid" },
        kind: { type: "string", minLength: 1, maxLength: 8, enum: ["a", "b"], description: "a or b" },
        note: { anyOf: [{ type: "string", minLength: 1, maxLength: 5 }, { type: "null" }] },
        tags: { type: "array", maxItems: 2, items: { type: "string" } },
      },
    });
  });
});
