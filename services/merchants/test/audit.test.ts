import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@payin/ids";
import { merchantsV1 } from "@payin/proto";
import { Code, fromTimestamp } from "@payin/rpc";
import { expectFailure, failure, testAssertions } from "@payin/testing";
import { EVM_RPC_PROVIDER_UUID } from "../src/domain/provider.js";
import { ASSERTIONS, identityActor, startMerchants, type Harness } from "./harness.js";

const { MerchantTransition } = merchantsV1;

let h: Harness;

beforeAll(async () => {
  h = await startMerchants();
});

afterAll(async () => {
  await h?.close();
});

/** The events of one actor, oldest first, as plain values. */
async function eventsOf(actorUuid: string) {
  const { events } = await h.client.listAuditEvents({ limit: 100, offset: 0 });
  return events
    .filter((e) => e.actor?.uuid === actorUuid)
    .reverse()
    .map((e) => ({ action: e.action, targetType: e.targetType, targetUuid: e.targetUuid, outcome: e.outcome, errorCode: e.errorCode }));
}

interface EventInit {
  eventUuid?: string;
  actor?: { assertion?: string; kind?: string; uuid?: string; requestId?: string };
  action?: string;
  targetType?: string;
  targetUuid?: string;
  outcome?: string;
  errorCode?: string;
}

const event = (over: EventInit = {}): EventInit => ({
  actor: identityActor(uuidv7()),
  action: "credential.rotate",
  targetType: "machine_credential",
  targetUuid: uuidv7(),
  outcome: "succeeded",
  errorCode: "",
  ...over,
});

describe("RecordAuditEvent and ListAuditEvents", () => {
  it("appends events with a service-assigned uuid and time, newest first, with a total", async () => {
    const before = (await h.client.listAuditEvents({ limit: 1 })).total;
    const start = Date.now();
    const ok = (await h.client.recordAuditEvent({ event: event({ eventUuid: "ignored" }) })).event!;
    expect(ok.eventUuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(fromTimestamp(ok.occurredAt)!.getTime()).toBeGreaterThanOrEqual(start - 5);
    const failed = (
      await h.client.recordAuditEvent({
        event: event({ outcome: "failed", errorCode: "AUTH_INVALID_CREDENTIALS", targetUuid: "" }),
      })
    ).event!;
    expect(failed).toMatchObject({ outcome: "failed", errorCode: "AUTH_INVALID_CREDENTIALS", targetUuid: "", actor: { kind: "identity" } });
    const page = await h.client.listAuditEvents({ limit: 2, offset: 0 });
    expect(page.total).toBe(before + 2n);
    expect(page.events.map((e) => e.eventUuid)).toEqual([failed.eventUuid, ok.eventUuid]);
    const next = await h.client.listAuditEvents({ limit: 1, offset: 1 });
    expect(next.events.map((e) => e.eventUuid)).toEqual([ok.eventUuid]);
    expect((await h.client.listAuditEvents({ limit: 100, offset: 10_000 })).events).toEqual([]);
  });

  it.each([
    ["no event", undefined],
    ["no actor", event({ actor: undefined })],
    ["an empty action", event({ action: "" })],
    ["an upper-case action", event({ action: "Merchant.Activate" })],
    ["an empty target type", event({ targetType: "" })],
    ["a malformed target uuid", event({ targetUuid: "nope" })],
    ["an unknown outcome", event({ outcome: "maybe" })],
    ["a failure without error code", event({ outcome: "failed", errorCode: "" })],
    ["a lower-case error code", event({ outcome: "failed", errorCode: "not_found" })],
    ["a success with an error code", event({ errorCode: "NOT_FOUND" })],
  ])("refuses %s with INVALID_ARGUMENT", async (_name, e) => {
    await expectFailure(h.client.recordAuditEvent({ event: e }), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it.each([
    ["a claimed identity without identity's assertion", { kind: "identity", uuid: uuidv7(), requestId: "" }],
    ["a claimed operator", { kind: "operator_cli", uuid: "", requestId: "" }],
    ["a claimed system actor", { kind: "system", uuid: "", requestId: "" }],
    ["an assertion another key signed", { assertion: testAssertions().identity(uuidv7()) }],
  ])("refuses %s with FORBIDDEN, recording nothing", async (_name, actor) => {
    const before = (await h.client.listAuditEvents({ limit: 1 })).total;
    await expectFailure(h.client.recordAuditEvent({ event: event({ actor }) }), Code.PermissionDenied, "FORBIDDEN");
    expect((await h.client.listAuditEvents({ limit: 1 })).total).toBe(before);
  });

  it.each([
    ["limit 0", { limit: 0 }],
    ["limit 101", { limit: 101 }],
  ])("refuses to list with %s", async (_name, req) => {
    await expectFailure(h.client.listAuditEvents(req), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it("filters a listing by action, target, actor and outcome, each exactly, the total counting only the matches", async () => {
    const target = uuidv7();
    const person = uuidv7();
    const byPerson = identityActor(person);
    const rotated = (await h.client.recordAuditEvent({ event: event({ actor: byPerson, action: "credential.rotate", targetUuid: target }) })).event!;
    const refused = (
      await h.client.recordAuditEvent({ event: event({ actor: byPerson, action: "credential.revoke", targetUuid: target, outcome: "failed", errorCode: "CREDENTIAL_NOT_FOUND" }) })
    ).event!;
    const machine = uuidv7();
    const byMachine = (
      await h.client.recordAuditEvent({
        event: event({
          actor: { assertion: ASSERTIONS.sign({ kind: "machine_credential", uuid: machine, permissions: [], mfaRecentUntil: null, expiresAt: Date.now() + 60_000 }) },
          action: "credential.rotate",
          targetUuid: target,
        }),
      })
    ).event!;
    await h.client.recordAuditEvent({ event: event({ actor: byPerson, action: "credential.rotate" }) }); // another target
    const uuids = async (filter: { action?: string; targetType?: string; targetUuid?: string; actorKind?: string; actorUuid?: string; outcome?: string }) => {
      const page = await h.client.listAuditEvents({ limit: 100, ...filter });
      expect(page.total).toBe(BigInt(page.events.length));
      return page.events.map((e) => e.eventUuid);
    };
    expect(await uuids({ targetUuid: target })).toEqual([byMachine.eventUuid, refused.eventUuid, rotated.eventUuid]);
    expect(await uuids({ targetUuid: target, action: "credential.rotate" })).toEqual([byMachine.eventUuid, rotated.eventUuid]);
    expect(await uuids({ targetUuid: target, actorKind: "machine_credential" })).toEqual([byMachine.eventUuid]);
    expect(await uuids({ targetUuid: target, actorUuid: machine })).toEqual([byMachine.eventUuid]);
    expect(await uuids({ targetUuid: target, actorUuid: person, outcome: "failed" })).toEqual([refused.eventUuid]);
    expect(await uuids({ targetUuid: target, targetType: "merchant" })).toEqual([]);
    expect((await h.client.listAuditEvents({ limit: 1, targetUuid: target })).total).toBe(3n);
  });

  it.each([
    ["a malformed target uuid", { targetUuid: "nope" }],
    ["a malformed actor uuid", { actorUuid: "nope" }],
    ["an unknown actor kind", { actorKind: "robot" }],
    ["an unknown outcome", { outcome: "maybe" }],
    ["an action no event can have", { action: "Merchant Activate" }],
    ["a target type no event can have", { targetType: "Merchant" }],
  ])("refuses to filter by %s with INVALID_ARGUMENT", async (_name, filter) => {
    await expectFailure(h.client.listAuditEvents({ limit: 10, ...filter }), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it("keeps the log append-only", async () => {
    await h.client.recordAuditEvent({ event: event() });
    const em = h.orm.em.fork();
    await expect(em.execute(`update audit_events set outcome = 'failed', error_code = 'X'`)).rejects.toThrow(/append-only/);
    await expect(em.execute(`delete from audit_events`)).rejects.toThrow(/append-only/);
    await expect(em.execute(`truncate audit_events`)).rejects.toThrow(/append-only/);
  });
});

describe("automatic audit of this service's own state changes", () => {
  it("records every change made with an actor, in order, with its target", async () => {
    const who = uuidv7();
    const actor = identityActor(who);
    const { merchant } = await h.client.createMerchant({ displayName: "Audited", actor });
    const m = merchant!.uuid;
    await h.client.transitionMerchant({ uuid: m, transition: MerchantTransition.ACTIVATE, actor });
    const identity = uuidv7();
    await h.client.ensureMember({ merchantUuid: m, identityUuid: identity, actor });
    await h.client.ensureMember({ merchantUuid: m, identityUuid: identity, actor }); // repeat: no change, no event
    const { rule } = await h.client.createRule({ capability: "crypto.payin", jurisdiction: "DE", effect: "allow", actor });
    await h.client.ensureOperatingProfile({ merchantUuid: m, operatingMode: "non_custodial", actor });
    await h.client.ensureOperatingProfile({ merchantUuid: m, operatingMode: "non_custodial", actor }); // unchanged
    const { policy } = await h.client.createPolicy({ merchantUuid: m, scope: "payin", effect: "allow", actor });
    const { provider } = await h.client.createProvider({ name: `audited-${who}`, actor });
    const bindingReq = { merchantUuid: m, providerUuid: EVM_RPC_PROVIDER_UUID, capability: "crypto.payin", jurisdiction: "DE", actor };
    const { binding } = await h.client.ensureProviderBinding(bindingReq);
    await h.client.ensureProviderBinding(bindingReq); // repeat
    const connectionReq = { merchantUuid: m, providerUuid: EVM_RPC_PROVIDER_UUID, secretReference: "vault:kv/audit", actor };
    const { connection } = await h.client.ensureProviderConnection(connectionReq);
    await h.client.ensureProviderConnection(connectionReq); // repeat
    const c = connection!.connectionUuid;
    await h.client.rotateProviderConnectionSecret({ merchantUuid: m, connectionUuid: c, secretReference: "vault:kv/audit2", actor });
    await h.client.transitionMerchant({ uuid: m, transition: MerchantTransition.CLOSE, actor });

    const ok = (action: string, targetType: string, targetUuid: string) => ({ action, targetType, targetUuid, outcome: "succeeded", errorCode: "" });
    expect(await eventsOf(who)).toEqual([
      ok("merchant.create", "merchant", m),
      ok("merchant.activate", "merchant", m),
      ok("merchant.member.attach", "merchant", m),
      ok("rule.create", "rule", rule!.ruleUuid),
      ok("merchant.operating_profile.ensure", "merchant", m),
      ok("policy.create", "policy", policy!.policyUuid),
      ok("provider.create", "provider", provider!.providerUuid),
      ok("provider_binding.create", "provider_binding", binding!.bindingUuid),
      ok("provider_connection.create", "provider_connection", c),
      ok("provider_connection.rotate_secret", "provider_connection", c),
      ok("merchant.close", "merchant", m),
    ]);
    const { events } = await h.client.listAuditEvents({ limit: 100 });
    for (const e of events.filter((x) => x.actor?.uuid === who)) {
      expect(e.actor).toMatchObject({ kind: "identity", uuid: who, osUser: "" });
    }
  });

  it("records nothing for a refused change or a request without actor", async () => {
    const who = uuidv7();
    const actor = identityActor(who);
    const { merchant } = await h.client.createMerchant({ displayName: "Quiet" });
    const m = merchant!.uuid;
    await h.client.createPolicy({ merchantUuid: m, scope: "payin", effect: "allow" });
    await failure(h.client.createPolicy({ merchantUuid: m, scope: "payin", effect: "allow", actor }));
    await failure(h.client.transitionMerchant({ uuid: m, transition: MerchantTransition.SUSPEND, actor }));
    await failure(h.client.createProvider({ name: "evm-rpc", actor }));
    expect(await eventsOf(who)).toEqual([]);
  });

  it("refuses an actor identity did not vouch for before changing anything", async () => {
    const name = `Invalid actor ${uuidv7()}`;
    await expectFailure(h.client.createMerchant({ displayName: name, actor: { kind: "identity", uuid: uuidv7(), requestId: "" } }), Code.PermissionDenied, "FORBIDDEN");
    expect((await h.client.listMerchants({ limit: 10, displayName: name })).total).toBe(0n);
  });

  it("writes the event in the change's transaction: no event, no change", async () => {
    const em = h.orm.em.fork();
    await em.execute(`create function fail_audit() returns trigger language plpgsql as $$ begin raise exception 'audit down'; end $$`);
    await em.execute(`create trigger fail_audit before insert on audit_events for each row execute function fail_audit()`);
    const name = `Atomic ${uuidv7()}`;
    try {
      const error = await failure(h.client.createMerchant({ displayName: name, actor: identityActor(uuidv7()) }));
      expect(error.code).toBe(Code.Internal);
      await failure(h.client.createRule({ capability: "crypto.payin", jurisdiction: "LU", effect: "allow", actor: identityActor(uuidv7()) }));
      // Without an actor nothing is audited, so the change goes through.
      await h.client.createMerchant({ displayName: `${name} unaudited` });
    } finally {
      await em.execute(`drop trigger fail_audit on audit_events`);
    }
    expect((await h.client.listMerchants({ limit: 10, displayName: name })).total).toBe(0n);
    expect((await h.client.listMerchants({ limit: 10, displayName: `${name} unaudited` })).total).toBe(1n);
    expect((await h.client.listRules({ includeClosed: true })).rules.filter((r) => r.jurisdiction === "LU")).toEqual([]);
  });
});
