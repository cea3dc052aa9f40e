import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@payin/ids";
import { Code, reasonOf } from "@payin/rpc";
import { failure } from "@payin/testing";
import { intentEvent, personAssertion, startNotificationsServer, type NotificationsServer } from "./harness.js";

describe("notifications' callers, on the real server", () => {
  let server: NotificationsServer;
  const client = (caller: string) => server.client(caller);

  beforeAll(async () => {
    server = await startNotificationsServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const refused = async (call: () => Promise<unknown>) => {
    const error = await failure(call());
    return { code: error.code, reason: reasonOf(error) };
  };

  it("lets payins hand over events, and nothing else", async () => {
    const m = uuidv7();
    expect((await client("payins").recordEvents({ events: [intentEvent(m, "pay_in_intent.created")] })).recorded).toBe(1);
    for (const call of [() => client("payins").listEvents({ merchantUuid: m, limit: 10 }), () => client("payins").createWebhookEndpoint({ merchantUuid: m, url: "https://hooks.example.com/" })]) {
      expect(await refused(call)).toEqual({ code: Code.PermissionDenied, reason: undefined });
    }
  });

  it("lets the api and the checkout manage endpoints for a person; never record events", async () => {
    const m = uuidv7();
    for (const caller of ["api", "checkout"]) {
      const { endpoint, secret } = await client(caller).createWebhookEndpoint({ merchantUuid: m, url: "https://hooks.example.com/", actorAssertion: personAssertion() });
      expect(secret).toMatch(/^whsec_/);
      expect((await client(caller).listWebhookEndpoints({ merchantUuid: m })).endpoints.map((e) => e.endpointUuid)).toContain(endpoint!.endpointUuid);
      expect(await refused(() => client(caller).recordEvents({ events: [intentEvent(m, "pay_in_intent.created")] }))).toEqual({ code: Code.PermissionDenied, reason: undefined });
    }
    expect((await client("api").listEvents({ merchantUuid: m, limit: 10 })).events).toEqual([]);
    expect(await refused(() => client("checkout").listEvents({ merchantUuid: m, limit: 10 }))).toEqual({ code: Code.PermissionDenied, reason: undefined });
  });

  it("refuses a change from the gateways without a person's assertion (FORBIDDEN)", async () => {
    const m = uuidv7();
    for (const caller of ["api", "checkout"]) {
      expect(await refused(() => client(caller).createWebhookEndpoint({ merchantUuid: m, url: "https://hooks.example.com/" }))).toEqual({ code: Code.PermissionDenied, reason: "FORBIDDEN" });
    }
    expect((await client("api").listWebhookEndpoints({ merchantUuid: m })).endpoints).toEqual([]);
  });

  it("refuses every other caller everything", async () => {
    const m = uuidv7();
    for (const caller of ["allocation", "observer", "identity", "payinctl", "stack", "notifications"]) {
      expect({ caller, ...(await refused(() => client(caller).listWebhookEndpoints({ merchantUuid: m }))) }).toEqual({ caller, code: Code.PermissionDenied, reason: undefined });
    }
  });
});
