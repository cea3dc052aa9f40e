import type Router from "@koa/router";
import { describe, expect, it } from "vitest";
import { createLogger } from "@payin/logging";
import { allocationV1, identityV1, merchantsV1, payinsV1 } from "@payin/proto";
import { createServiceClient } from "@payin/rpc";
import { createApp } from "../app.js";
import { Authenticator } from "../auth/authenticator.js";
import { documentedOperations, openApiDocument } from "./document.js";

/** "METHOD /path" of every route the app serves, read from its routers. */
function servedOperations(): string[] {
  const options = { baseUrl: "http://127.0.0.1:9", serviceToken: "x".repeat(32) };
  const identity = createServiceClient(identityV1.IdentityService, options);
  const app = createApp({
    logger: createLogger("test", { level: "silent" }),
    auth: new Authenticator(identity, 0),
    identity,
    payins: createServiceClient(payinsV1.PayinsService, options),
    merchants: createServiceClient(merchantsV1.MerchantsService, options),
    allocation: createServiceClient(allocationV1.AllocationService, options),
  });
  const served = new Set<string>();
  for (const middleware of app.middleware) {
    const router = (middleware as { router?: Router }).router;
    for (const layer of router?.stack ?? []) {
      const path = String(layer.path).replace(/:(\w+)/g, "{$1}").replace(/\/$/, "");
      for (const method of layer.methods) if (method !== "HEAD") served.add(`${method} ${path}`);
    }
  }
  return [...served].sort();
}

describe("OpenAPI document", () => {
  it("documents exactly the routes the gateway serves", () => {
    expect(servedOperations()).toEqual(documentedOperations().sort());
  });

  it("is OpenAPI 3.1 with resolvable schema references", () => {
    const doc = openApiDocument() as { openapi: string; components: { schemas: Record<string, unknown> } };
    expect(doc.openapi).toBe("3.1.0");
    const refs = [...JSON.stringify(doc).matchAll(/"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]!);
    for (const name of refs) expect(doc.components.schemas, name).toHaveProperty(name);
  });

  it("gives login both of its 200 answers: a session, or an MFA challenge", () => {
    const doc = openApiDocument() as any;
    const schema = doc.paths["/api/v1/auth/login"].post.responses["200"].content["application/json"].schema;
    const resolve = (s: any) => (s.$ref ? doc.components.schemas[s.$ref.split("/").pop()] : s);
    const shapes = (resolve(schema).oneOf as any[]).map(resolve).map((s) => s.properties.status.enum);
    expect(shapes).toEqual([["authenticated"], ["mfa_required"]]);
  });
});
