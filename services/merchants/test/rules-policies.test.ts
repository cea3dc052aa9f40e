import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { database, type Queryable } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { merchantsV1 } from "@payin/proto";
import { Code, ConnectError, fromTimestamp, reasonOf } from "@payin/rpc";
import { expectFailure } from "@payin/testing";
import { EVM_RPC_PROVIDER_UUID } from "../src/domain/provider.js";
import { PayinContextRepository } from "../src/store/payin-context-repository.js";
import { activeMerchant, closedMerchant, startMerchants, UNKNOWN_UUID, type Harness } from "./harness.js";

const { MerchantStatus } = merchantsV1;

let h: Harness;

beforeAll(async () => {
  h = await startMerchants();
});

afterAll(async () => {
  await h?.close();
});

/** The one capability there is; each test below uses jurisdictions of its own, so tests do not share rule keys. */
const PAYIN = "crypto.payin";

/** The rule versions of one (crypto.payin, jurisdiction) key. */
async function rulesOf(jurisdiction: string, includeClosed: boolean) {
  return (await h.client.listRules({ includeClosed })).rules.filter((r) => r.capability === PAYIN && r.jurisdiction === jurisdiction);
}

/** Every version of one key, by version, as plain values. */
function history(items: { version: number; effect: string; validFrom?: { seconds: bigint; nanos: number }; validTo?: { seconds: bigint; nanos: number } }[]) {
  return items
    .map((v) => ({
      version: v.version,
      effect: v.effect,
      from: fromTimestamp(v.validFrom as never)!.getTime(),
      to: v.validTo ? fromTimestamp(v.validTo as never)!.getTime() : null,
    }))
    .sort((a, b) => a.version - b.version);
}

/** Versions are 1..n, exactly the last is open, each closes when the next opens, and neighbours differ. */
function expectWellFormed(versions: ReturnType<typeof history>): void {
  expect(versions.map((v) => v.version)).toEqual(versions.map((_, i) => i + 1));
  expect(versions.filter((v) => v.to === null)).toHaveLength(1);
  expect(versions.at(-1)!.to).toBeNull();
  for (let i = 0; i + 1 < versions.length; i++) {
    expect(versions[i]!.to).toBe(versions[i + 1]!.from);
    expect(versions[i]!.effect).not.toBe(versions[i + 1]!.effect);
  }
}

describe("CreateRule and ListRules", () => {
  it("opens version 1, then closes it and opens version 2 in one step", async () => {
    const v1 = (await h.client.createRule({ capability: PAYIN, jurisdiction: "AT", effect: "allow" })).rule!;
    expect(v1).toMatchObject({ capability: PAYIN, jurisdiction: "AT", effect: "allow", version: 1 });
    expect(v1.validTo).toBeUndefined();
    const v2 = (await h.client.createRule({ capability: PAYIN, jurisdiction: "AT", effect: "deny" })).rule!;
    expect(v2).toMatchObject({ effect: "deny", version: 2 });
    const open = await rulesOf("AT", false);
    expect(open.map((r) => r.ruleUuid)).toEqual([v2.ruleUuid]);
    const all = await rulesOf("AT", true);
    expect(all.map((r) => r.version)).toEqual([1, 2]);
    expect(all[0]!.validTo).toEqual(v2.validFrom);
    // Another jurisdiction is another rule.
    expect((await h.client.createRule({ capability: PAYIN, jurisdiction: "CH", effect: "deny" })).rule?.version).toBe(1);
  });

  it("answers RULE_UNCHANGED when the open version already has the effect", async () => {
    await h.client.createRule({ capability: PAYIN, jurisdiction: "US", effect: "allow" });
    await expectFailure(h.client.createRule({ capability: PAYIN, jurisdiction: "US", effect: "allow" }), Code.FailedPrecondition, "RULE_UNCHANGED");
    expect(await rulesOf("US", true)).toHaveLength(1);
  });

  it.each([
    ["an unknown capability", { capability: "crypto.payout", jurisdiction: "DE", effect: "allow" }],
    ["an upper-case capability", { capability: "Crypto.payin", jurisdiction: "DE", effect: "allow" }],
    ["an empty capability", { capability: "", jurisdiction: "DE", effect: "allow" }],
    ["a 65-character capability", { capability: `a${"b".repeat(64)}`, jurisdiction: "DE", effect: "allow" }],
    ["a lower-case jurisdiction", { capability: PAYIN, jurisdiction: "de", effect: "allow" }],
    ["a three-letter jurisdiction", { capability: PAYIN, jurisdiction: "DEU", effect: "allow" }],
    ["a wildcard jurisdiction", { capability: PAYIN, jurisdiction: "*", effect: "allow" }],
    ["an unassigned jurisdiction", { capability: PAYIN, jurisdiction: "XX", effect: "allow" }],
    ["an unknown effect", { capability: PAYIN, jurisdiction: "DE", effect: "maybe" }],
    ["an upper-case effect", { capability: PAYIN, jurisdiction: "DE", effect: "ALLOW" }],
  ])("refuses %s with INVALID_ARGUMENT", async (_name, req) => {
    await expectFailure(h.client.createRule(req), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it("refuses a capability it does not know, naming the known ones, and stores nothing", async () => {
    const error = await h.client.createRule({ capability: "crypto.payout", jurisdiction: "PT", effect: "allow" }).then(
      () => null,
      (e: unknown) => e as ConnectError,
    );
    expect(error?.rawMessage).toBe("capability must be one of the known capabilities: crypto.payin");
    expect((await h.client.listRules({ includeClosed: true })).rules.filter((r) => r.jurisdiction === "PT")).toEqual([]);
  });

  it("keeps one open version and versions 1..n under 20 concurrent creates of one pair", async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => h.client.createRule({ capability: PAYIN, jurisdiction: "GB", effect: i % 2 === 0 ? "allow" : "deny" })),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected");
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const r of lost) expect(reasonOf((r as PromiseRejectedResult).reason as ConnectError)).toBe("RULE_UNCHANGED");
    const versions = history(await rulesOf("GB", true));
    expect(versions).toHaveLength(won.length);
    expectWellFormed(versions);
    const returned = won.map((r) => (r as PromiseFulfilledResult<merchantsV1.CreateRuleResponse>).value.rule!.version);
    expect(new Set(returned).size).toBe(won.length);
  });

  it("lets the partial unique index refuse a second open version written behind the service's back", async () => {
    await h.client.createRule({ capability: PAYIN, jurisdiction: "SE", effect: "allow" });
    const em = h.orm.em.fork();
    await expect(
      em.execute(`insert into rules (rule_uuid, capability, jurisdiction, effect, version, valid_from) values (?, ?, 'SE', 'deny', 2, now())`, [uuidv7(), PAYIN]),
    ).rejects.toThrow(/rules_one_open_idx/);
  });

  it("pages the list when asked, with the exact total, in a stable order", async () => {
    for (const jurisdiction of ["EE", "LV", "LT"]) await h.client.createRule({ capability: PAYIN, jurisdiction, effect: "allow" });
    const whole = await h.client.listRules({ includeClosed: true });
    expect(whole.total).toBe(BigInt(whole.rules.length));
    const first = await h.client.listRules({ includeClosed: true, limit: 2, offset: 0 });
    const second = await h.client.listRules({ includeClosed: true, limit: 2, offset: 2 });
    expect(first.total).toBe(whole.total);
    expect([...first.rules, ...second.rules].map((r) => r.ruleUuid)).toEqual(whole.rules.slice(0, 4).map((r) => r.ruleUuid));
    expect((await h.client.listRules({ includeClosed: true, limit: 100, offset: Number(whole.total) })).rules).toEqual([]);
    for (const limit of [0, 101]) await expectFailure(h.client.listRules({ limit }), Code.InvalidArgument, "INVALID_ARGUMENT");
  });
});

describe("EnsureOperatingProfile", () => {
  it("creates, keeps and changes the profile", async () => {
    const merchant = await activeMerchant(h.client);
    const first = (await h.client.ensureOperatingProfile({ merchantUuid: merchant, operatingMode: "non_custodial" })).profile!;
    expect(first).toMatchObject({ merchantUuid: merchant, operatingMode: "non_custodial" });
    const same = (await h.client.ensureOperatingProfile({ merchantUuid: merchant, operatingMode: "non_custodial" })).profile!;
    expect(same.updatedAt).toEqual(first.updatedAt);
    const changed = (await h.client.ensureOperatingProfile({ merchantUuid: merchant, operatingMode: "hybrid" })).profile!;
    expect(changed.operatingMode).toBe("hybrid");
    expect(changed.createdAt).toEqual(first.createdAt);
    await h.client.ensureOperatingProfile({ merchantUuid: merchant, operatingMode: "platform_custody" });
  });

  it("refuses an unknown mode, an unknown merchant and a closed merchant", async () => {
    const merchant = await activeMerchant(h.client);
    for (const operatingMode of ["", "custodial", "HYBRID"]) {
      await expectFailure(h.client.ensureOperatingProfile({ merchantUuid: merchant, operatingMode }), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
    await expectFailure(
      h.client.ensureOperatingProfile({ merchantUuid: UNKNOWN_UUID, operatingMode: "hybrid" }),
      Code.NotFound,
      "MERCHANT_NOT_FOUND",
    );
    await expectFailure(
      h.client.ensureOperatingProfile({ merchantUuid: await closedMerchant(h.client), operatingMode: "hybrid" }),
      Code.FailedPrecondition,
      "MERCHANT_CLOSED",
    );
  });
});

describe("CreatePolicy", () => {
  it("versions per (merchant, scope) like rules", async () => {
    const merchant = await activeMerchant(h.client);
    const v1 = (await h.client.createPolicy({ merchantUuid: merchant, scope: "payin", effect: "allow" })).policy!;
    expect(v1).toMatchObject({ merchantUuid: merchant, scope: "payin", effect: "allow", version: 1 });
    expect(v1.validTo).toBeUndefined();
    const v2 = (await h.client.createPolicy({ merchantUuid: merchant, scope: "payin", effect: "deny" })).policy!;
    expect(v2.version).toBe(2);
    expect((await h.client.createPolicy({ merchantUuid: merchant, scope: "payout", effect: "deny" })).policy?.version).toBe(1);
    const other = await activeMerchant(h.client);
    expect((await h.client.createPolicy({ merchantUuid: other, scope: "payin", effect: "deny" })).policy?.version).toBe(1);
    const rows = await h.orm.em.fork().execute(
      `select version, valid_to from policies where merchant_uuid = ? and scope = 'payin' order by version`,
      [merchant],
    );
    expect(rows.map((r) => [r.version, r.valid_to === null])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it("answers POLICY_UNCHANGED, MERCHANT_CLOSED, MERCHANT_NOT_FOUND and INVALID_ARGUMENT", async () => {
    const merchant = await activeMerchant(h.client);
    await h.client.createPolicy({ merchantUuid: merchant, scope: "custody", effect: "deny" });
    await expectFailure(
      h.client.createPolicy({ merchantUuid: merchant, scope: "custody", effect: "deny" }),
      Code.FailedPrecondition,
      "POLICY_UNCHANGED",
    );
    await expectFailure(
      h.client.createPolicy({ merchantUuid: await closedMerchant(h.client), scope: "payin", effect: "allow" }),
      Code.FailedPrecondition,
      "MERCHANT_CLOSED",
    );
    await expectFailure(
      h.client.createPolicy({ merchantUuid: UNKNOWN_UUID, scope: "payin", effect: "allow" }),
      Code.NotFound,
      "MERCHANT_NOT_FOUND",
    );
    for (const req of [
      { scope: "refunds", effect: "allow" },
      { scope: "", effect: "allow" },
      { scope: "settlement", effect: "" },
    ]) {
      await expectFailure(h.client.createPolicy({ merchantUuid: merchant, ...req }), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
  });

  it("keeps one open version and versions 1..n under 20 concurrent creates of one scope", async () => {
    const merchant = await activeMerchant(h.client);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        h.client.createPolicy({ merchantUuid: merchant, scope: "settlement", effect: i % 2 === 0 ? "allow" : "deny" }),
      ),
    );
    const won = results.filter((r) => r.status === "fulfilled") as PromiseFulfilledResult<merchantsV1.CreatePolicyResponse>[];
    for (const r of results) {
      if (r.status === "rejected") expect(reasonOf(r.reason as ConnectError)).toBe("POLICY_UNCHANGED");
    }
    const rows = await h.orm.em.fork().execute(
      `select version, effect, valid_from, valid_to from policies where merchant_uuid = ? and scope = 'settlement'`,
      [merchant],
    );
    const versions = rows
      .map((r) => ({
        version: Number(r.version),
        effect: r.effect as string,
        from: new Date(r.valid_from).getTime(),
        to: r.valid_to === null ? null : new Date(r.valid_to).getTime(),
      }))
      .sort((a, b) => a.version - b.version);
    expect(versions).toHaveLength(won.length);
    expectWellFormed(versions);
    expect(new Set(won.map((r) => r.value.policy!.version)).size).toBe(won.length);
  });
});

describe("GetPayinContext", () => {
  it("answers status, rule effect, payin policy effect and operating mode", async () => {
    const merchant = await activeMerchant(h.client);
    const empty = await h.client.getPayinContext({ merchantUuid: merchant, jurisdiction: "NL" });
    expect(empty).toMatchObject({ status: MerchantStatus.ACTIVE, ruleEffect: "", payinPolicyEffect: "", operatingMode: "", payinProviderConnected: false });

    await h.client.createRule({ capability: "crypto.payin", jurisdiction: "NL", effect: "allow" });
    // A rule of another capability (only SQL can write one now) does not count.
    await h.orm.em.fork().execute(
      `insert into rules (rule_uuid, capability, jurisdiction, effect, version, valid_from) values (?, 'crypto.payout', 'NL', 'deny', 1, now())`,
      [uuidv7()],
    );
    await h.client.createPolicy({ merchantUuid: merchant, scope: "payin", effect: "allow" });
    await h.client.createPolicy({ merchantUuid: merchant, scope: "payout", effect: "deny" });
    await h.client.ensureOperatingProfile({ merchantUuid: merchant, operatingMode: "non_custodial" });
    const full = await h.client.getPayinContext({ merchantUuid: merchant, jurisdiction: "NL" });
    expect(full).toMatchObject({ status: MerchantStatus.ACTIVE, ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "non_custodial" });

    // The open versions count, closed ones do not.
    await h.client.createRule({ capability: "crypto.payin", jurisdiction: "NL", effect: "deny" });
    await h.client.createPolicy({ merchantUuid: merchant, scope: "payin", effect: "deny" });
    const after = await h.client.getPayinContext({ merchantUuid: merchant, jurisdiction: "NL" });
    expect(after).toMatchObject({ ruleEffect: "deny", payinPolicyEffect: "deny" });

    // Another jurisdiction has no rule; no jurisdiction asks for none.
    expect((await h.client.getPayinContext({ merchantUuid: merchant, jurisdiction: "BE" })).ruleEffect).toBe("");
    expect((await h.client.getPayinContext({ merchantUuid: merchant })).ruleEffect).toBe("");
  });

  it("answers MERCHANT_NOT_FOUND and INVALID_ARGUMENT", async () => {
    for (const merchantUuid of [UNKNOWN_UUID, "bad"]) {
      await expectFailure(h.client.getPayinContext({ merchantUuid, jurisdiction: "DE" }), Code.NotFound, "MERCHANT_NOT_FOUND");
    }
    const merchant = await activeMerchant(h.client);
    for (const jurisdiction of ["de", "DEU", "XX"]) {
      await expectFailure(h.client.getPayinContext({ merchantUuid: merchant, jurisdiction }), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
  });

  it("reads everything in one SQL round trip", async () => {
    const merchant = await activeMerchant(h.client);
    const db = database(h.orm);
    let statements = 0;
    const counting: Queryable = {
      query: (statement, values) => {
        statements++;
        return db.query(statement, values);
      },
    };
    const context = await new PayinContextRepository(counting).payinContext(merchant, "crypto.payin", "DE");
    expect(context?.status).toBe("active");
    expect(statements).toBe(1);
  });
});

describe("GetReadinessInputs", () => {
  it("answers the merchant's side of readiness; only a crypto.payin binding with a connection to that provider counts, in its own jurisdiction", async () => {
    const m = await activeMerchant(h.client, "Readiness inputs");
    // GetPayinContext answers the merchant-wide provider_connected exactly as GetReadinessInputs does, at every step.
    const inputs = async () => {
      const [answer, context] = await Promise.all([h.client.getReadinessInputs({ merchantUuid: m }), h.client.getPayinContext({ merchantUuid: m, jurisdiction: "DE" })]);
      expect(context.payinProviderConnected).toBe(answer.payinProviderConnected);
      return answer;
    };
    const connectedIn = async (jurisdiction: string) => (await h.client.getPayinContext({ merchantUuid: m, jurisdiction })).payinProviderConnectedInJurisdiction;
    expect(await inputs()).toMatchObject({ status: MerchantStatus.ACTIVE, payinPolicyEffect: "", operatingMode: "", payinProviderConnected: false });

    await h.client.ensureOperatingProfile({ merchantUuid: m, operatingMode: "hybrid" });
    await h.client.createPolicy({ merchantUuid: m, scope: "payin", effect: "deny" });
    const { provider: other } = await h.client.createProvider({ name: `readiness-${uuidv7()}` });
    const evmRpc = EVM_RPC_PROVIDER_UUID;
    // A binding for another capability, and a connection to another provider, do not count.
    // (only SQL can write a binding of another capability now)
    await h.orm.em.fork().execute(
      `insert into provider_bindings (binding_uuid, merchant_uuid, provider_uuid, capability, jurisdiction, created_at) values (?, ?, ?, 'crypto.payout', 'DE', now())`,
      [uuidv7(), m, evmRpc],
    );
    await h.client.ensureProviderBinding({ merchantUuid: m, providerUuid: other!.providerUuid, capability: "crypto.payin", jurisdiction: "DE" });
    await h.client.ensureProviderConnection({ merchantUuid: m, providerUuid: evmRpc });
    expect(await inputs()).toMatchObject({ payinPolicyEffect: "deny", operatingMode: "hybrid", payinProviderConnected: false });
    expect(await connectedIn("DE")).toBe(false);

    // Bound for FR with a connection: connected merchant-wide and in FR, not in DE (nor when no jurisdiction is asked).
    await h.client.ensureProviderBinding({ merchantUuid: m, providerUuid: evmRpc, capability: "crypto.payin", jurisdiction: "FR" });
    expect((await inputs()).payinProviderConnected).toBe(true);
    expect({ FR: await connectedIn("FR"), DE: await connectedIn("DE"), none: await connectedIn("") }).toEqual({ FR: true, DE: false, none: false });
    const wide = await h.client.getPayinContext({ merchantUuid: m, jurisdiction: "" });
    expect({ rule: wide.ruleEffect, connected: wide.payinProviderConnected }).toEqual({ rule: "", connected: true });

    await h.client.ensureProviderBinding({ merchantUuid: m, providerUuid: evmRpc, capability: "crypto.payin", jurisdiction: "DE" });
    expect(await connectedIn("DE")).toBe(true);

    await expectFailure(h.client.getReadinessInputs({ merchantUuid: UNKNOWN_UUID }), Code.NotFound, "MERCHANT_NOT_FOUND");
    await expectFailure(h.client.getReadinessInputs({ merchantUuid: "nope" }), Code.NotFound, "MERCHANT_NOT_FOUND");
  });
});
