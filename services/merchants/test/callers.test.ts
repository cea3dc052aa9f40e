import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, reasonOf } from "@payin/rpc";
import { failure } from "@payin/testing";
import { CALLERS } from "../src/rpc/callers.js";
import { ASSERTIONS, startMerchantsServer, type MerchantsServer } from "./harness.js";

/** The operator CLI's actor: a signed-in person, and the OS user it ran as. */
const OPERATOR = { osUser: "ops", assertion: ASSERTIONS.identity(crypto.randomUUID()) };

describe("merchants' callers, on the real server", () => {
  let server: MerchantsServer;
  const client = (caller: string) => server.client(caller);

  beforeAll(async () => {
    server = await startMerchantsServer("merchants");
  });
  afterAll(async () => {
    await server?.close();
  });

  it("lets payins and allocation read pay-in contexts, and nothing else", async () => {
    const uuid = crypto.randomUUID();
    // Past the allowlist: the service answers (an unknown merchant), with its reason.
    for (const call of [() => client("payins").getPayinContext({ merchantUuid: uuid }), () => client("allocation").getPayinContext({ merchantUuid: uuid, jurisdiction: "DE" })]) {
      const answered = await call().then(
        () => undefined,
        (error: unknown) => error,
      );
      if (answered !== undefined) expect(reasonOf(answered as never)).toBeDefined();
    }
    for (const call of [
      () => client("payins").createMerchant({ displayName: "Not Yours" }),
      () => client("payins").getReadinessInputs({ merchantUuid: uuid }),
      () => client("allocation").getReadinessInputs({ merchantUuid: uuid }),
      () => client("allocation").listMerchants({}),
    ]) {
      const error = await failure(call());
      expect({ code: error.code, reason: reasonOf(error) }).toEqual({ code: Code.PermissionDenied, reason: undefined });
    }
  });

  it("lets the api and payinctl administer, but not read what payins and allocation read", async () => {
    const { merchant } = await client("api").createMerchant({ displayName: "Admin Shop", actor: { assertion: ASSERTIONS.identity(crypto.randomUUID()) } });
    expect((await client("payinctl").getMerchant({ uuid: merchant!.uuid })).merchant?.displayName).toBe("Admin Shop");
    for (const caller of ["api", "payinctl"]) {
      const error = await failure(client(caller).getPayinContext({ merchantUuid: merchant!.uuid }));
      expect({ caller, code: error.code }).toEqual({ caller, code: Code.PermissionDenied });
    }
  });

  it("lets the api read one rule, policy, provider, binding and connection (what a create's Location names); not the checkout", async () => {
    const api = client("api");
    const providerUuid = "01a2008d-7400-7000-8000-000000000001";
    const actor = { assertion: ASSERTIONS.identity(crypto.randomUUID()) };
    const { merchant } = await api.createMerchant({ displayName: "Readable Shop", actor });
    const merchantUuid = merchant!.uuid;
    const { rule } = await api.createRule({ capability: "crypto.payin", jurisdiction: "NO", effect: "allow", actor });
    const { policy } = await api.createPolicy({ merchantUuid, scope: "payin", effect: "allow", actor });
    const { binding } = await api.ensureProviderBinding({ merchantUuid, providerUuid, capability: "crypto.payin", jurisdiction: "NO", actor });
    const { connection } = await api.ensureProviderConnection({ merchantUuid, providerUuid, actor });
    expect((await api.getRule({ ruleUuid: rule!.ruleUuid })).rule).toEqual(rule);
    expect((await api.getPolicy({ merchantUuid, policyUuid: policy!.policyUuid })).policy).toEqual(policy);
    expect((await api.getProvider({ providerUuid })).provider?.name).toBe("evm-rpc");
    expect((await api.getProviderBinding({ merchantUuid, bindingUuid: binding!.bindingUuid })).binding).toEqual(binding);
    expect((await api.getProviderConnection({ merchantUuid, connectionUuid: connection!.connectionUuid })).connection).toEqual(connection);
    // Unknown, malformed or another merchant's: NOT_FOUND with the resource's reason.
    const { merchant: other } = await api.createMerchant({ displayName: "Other Shop", actor });
    for (const [call, reason] of [
      [() => api.getRule({ ruleUuid: crypto.randomUUID() }), "RULE_NOT_FOUND"],
      [() => api.getRule({ ruleUuid: "x" }), "RULE_NOT_FOUND"],
      [() => api.getPolicy({ merchantUuid: other!.uuid, policyUuid: policy!.policyUuid }), "POLICY_NOT_FOUND"],
      [() => api.getPolicy({ merchantUuid: crypto.randomUUID(), policyUuid: policy!.policyUuid }), "MERCHANT_NOT_FOUND"],
      [() => api.getProvider({ providerUuid: "x" }), "PROVIDER_NOT_FOUND"],
      [() => api.getProviderBinding({ merchantUuid: other!.uuid, bindingUuid: binding!.bindingUuid }), "BINDING_NOT_FOUND"],
      [() => api.getProviderBinding({ merchantUuid, bindingUuid: "x" }), "BINDING_NOT_FOUND"],
      [() => api.getProviderConnection({ merchantUuid: other!.uuid, connectionUuid: connection!.connectionUuid }), "CONNECTION_NOT_FOUND"],
      [() => api.getProviderConnection({ merchantUuid: "x", connectionUuid: connection!.connectionUuid }), "MERCHANT_NOT_FOUND"],
    ] as const) {
      const error = await failure(call());
      expect({ code: error.code, reason: reasonOf(error) }).toEqual({ code: Code.NotFound, reason });
    }
    for (const call of [() => client("checkout").getRule({ ruleUuid: rule!.ruleUuid }), () => client("checkout").getProvider({ providerUuid })]) {
      const error = await failure(call());
      expect({ code: error.code, reason: reasonOf(error) }).toEqual({ code: Code.PermissionDenied, reason: undefined });
    }
  });

  it("lets payinctl call the admin surface it uses (npm start's demo merchant included), never what payins and allocation read", async () => {
    // npm start binds and connects its demo merchant to the seeded provider.
    const providerUuid = "01a2008d-7400-7000-8000-000000000001";
    const { merchant } = await client("payinctl").createMerchant({ displayName: "Demo-like Shop", actor: OPERATOR });
    const merchantUuid = merchant!.uuid;
    expect((await client("payinctl").ensureProviderBinding({ merchantUuid, providerUuid, capability: "crypto.payin", jurisdiction: "DE", actor: OPERATOR })).created).toBe(true);
    expect((await client("payinctl").ensureProviderConnection({ merchantUuid, providerUuid, actor: OPERATOR })).created).toBe(true);
    // The operator CLI's listings and the provider registry.
    expect((await client("payinctl").listMerchants({ limit: 10, uuid: merchantUuid })).merchants.map((m) => m.uuid)).toEqual([merchantUuid]);
    expect((await client("payinctl").listProviders({})).providers.map((p) => p.providerUuid)).toContain(providerUuid);
    expect(typeof (await client("payinctl").listAuditEvents({ limit: 10 })).total).toBe("bigint");
    // The API's admin surface but for the reads of one resource, which the CLI never makes.
    const readOne = ["GetRule", "GetPolicy", "GetProvider", "GetProviderBinding", "GetProviderConnection"].map((m) => `payin.merchants.v1.MerchantsService/${m}`);
    const admin = [...CALLERS.get("api")!].filter((p) => !readOne.includes(p));
    expect([...CALLERS.get("payinctl")!].sort()).toEqual(admin.sort());
    for (const call of [
      () => client("payinctl").getRule({ ruleUuid: merchantUuid }),
      () => client("payinctl").getPayinContext({ merchantUuid }),
      () => client("payinctl").getReadinessInputs({ merchantUuid }),
      () => client("payinctl").getPayinContextFeedPosition({}),
    ]) {
      const error = await failure(call());
      expect({ code: error.code, reason: reasonOf(error) }).toEqual({ code: Code.PermissionDenied, reason: undefined });
    }
  });
});
