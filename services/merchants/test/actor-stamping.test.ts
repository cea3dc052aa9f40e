/**
 * Who acted is the service's to say: over the real server, with the callers'
 * real credentials, a change's audit event names the person identity vouched
 * for (or the operator CLI and its OS user), and the call's own request id —
 * never the kind, uuid or request id a caller wrote.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { merchantsV1 } from "@payin/proto";
import { ASSERTION_TTL_MS, Code, reasonOf } from "@payin/rpc";
import { failure, testAssertions } from "@payin/testing";
import { ASSERTIONS, startMerchantsServer, type MerchantsServer } from "./harness.js";

/** Another key: what anyone but identity could sign with. */
const FORGER = testAssertions();

let server: MerchantsServer;
const client = (caller: string, requestId?: string) => server.client(caller, requestId);

beforeAll(async () => {
  server = await startMerchantsServer("merchants_actor");
});
afterAll(async () => {
  await server?.close();
});

/** An assertion with one byte of its signature changed (mid-string: the last character also holds padding bits). */
function tampered(assertion: string): string {
  const at = assertion.length - 20;
  return assertion.slice(0, at) + (assertion[at] === "A" ? "B" : "A") + assertion.slice(at + 1);
}

/** The newest audit events of a target. */
async function eventsOf(targetUuid: string) {
  return (await client("api").listAuditEvents({ limit: 100, targetUuid })).events;
}

async function expectForbidden(call: Promise<unknown>) {
  const error = await failure(call);
  expect({ code: error.code, reason: reasonOf(error) }).toEqual({ code: Code.PermissionDenied, reason: "FORBIDDEN" });
}

describe("the actor of a change", () => {
  it("is the person identity's assertion names, whatever uuid, kind or request id the caller wrote", async () => {
    const alice = randomUUID();
    const bob = randomUUID();
    const { merchant } = await client("api", "req_platform_1").createMerchant({
      displayName: "Stamped Shop",
      actor: { kind: "identity", uuid: bob, requestId: "req_chosen_by_caller", assertion: ASSERTIONS.identity(alice) },
    });
    const [created] = await eventsOf(merchant!.uuid);
    expect(created).toMatchObject({ action: "merchant.create", actor: { kind: "identity", uuid: alice, requestId: "req_platform_1", osUser: "" } });
  });

  it("cannot be written by a gateway's credential without identity's word: no assertion, a forged one, an expired one", async () => {
    const { merchant } = await client("api").createMerchant({ displayName: "Target Shop", actor: { assertion: ASSERTIONS.identity(randomUUID()) } });
    const uuid = merchant!.uuid;
    const victim = randomUUID();
    const expired = ASSERTIONS.sign({ kind: "identity", uuid: victim, permissions: [], mfaRecentUntil: null, expiresAt: Date.now() - 1 });
    await expectForbidden(client("api").transitionMerchant({ uuid, transition: merchantsV1.MerchantTransition.ACTIVATE, actor: { kind: "identity", uuid: victim } }));
    for (const assertion of [FORGER.identity(victim), expired, "pa1.e30.AAAA", tampered(ASSERTIONS.identity(victim))]) {
      await expectForbidden(client("api").transitionMerchant({ uuid, transition: merchantsV1.MerchantTransition.ACTIVATE, actor: { assertion } }));
    }
    // Nothing changed, and no event names the victim.
    expect((await client("api").getMerchant({ uuid })).merchant!.status).toBe(merchantsV1.MerchantStatus.INACTIVE);
    expect((await client("api").listAuditEvents({ limit: 100, actorUuid: victim })).total).toBe(0n);
  });

  it("of RecordAuditEvent is stamped too: another person's uuid is never recorded on a caller's say", async () => {
    const target = randomUUID();
    const claimed = randomUUID();
    const event = { action: "credential.rotate", targetType: "merchant", targetUuid: target, outcome: "failed", errorCode: "FORBIDDEN" };
    await expectForbidden(client("api").recordAuditEvent({ event: { ...event, actor: { kind: "identity", uuid: claimed, requestId: "r" } } }));
    const real = randomUUID();
    const recorded = (await client("api", "req_platform_2").recordAuditEvent({ event: { ...event, actor: { kind: "identity", uuid: claimed, assertion: ASSERTIONS.identity(real) } } })).event!;
    expect(recorded.actor).toMatchObject({ kind: "identity", uuid: real, requestId: "req_platform_2" });
    expect((await client("api").listAuditEvents({ limit: 100, actorUuid: claimed })).total).toBe(0n);
  });

  it("from the operator CLI is the signed-in person and the OS user; without a person it records break-glass work as operator_cli, and changes nothing", async () => {
    const claimed = randomUUID();
    await expectForbidden(client("payinctl").createMerchant({ displayName: "CLI Shop", actor: { kind: "identity", uuid: claimed, osUser: "alice.ops" } }));
    expect((await client("api").listMerchants({ limit: 10, displayName: "CLI Shop" })).total).toBe(0n);
    const target = randomUUID();
    const recorded = (
      await client("payinctl", "req_cli_1").recordAuditEvent({
        event: { action: "identity.activate", targetType: "identity", targetUuid: target, outcome: "succeeded", actor: { kind: "identity", uuid: claimed, osUser: "alice.ops" } },
      })
    ).event!;
    expect(recorded.actor).toMatchObject({ kind: "operator_cli", uuid: "", requestId: "req_cli_1", osUser: "alice.ops" });
    // With a signed-in person: the person, and the OS user beside them.
    const person = randomUUID();
    const { merchant } = await client("payinctl").createMerchant({ displayName: "CLI Shop", actor: { assertion: ASSERTIONS.identity(person), osUser: "alice.ops" } });
    expect((await eventsOf(merchant!.uuid))[0]!.actor).toMatchObject({ kind: "identity", uuid: person, osUser: "alice.ops" });
  });

  it("refuses a malformed OS user, and an OS user from anyone but the operator CLI", async () => {
    for (const osUser of ["", "has space", "x".repeat(65), "semi;colon"]) {
      const error = await failure(client("payinctl").createMerchant({ displayName: "Bad User Shop", actor: { osUser, assertion: ASSERTIONS.identity(randomUUID()) } }));
      expect({ osUser, code: error.code }).toEqual({ osUser, code: Code.InvalidArgument });
    }
    const error = await failure(client("api").createMerchant({ displayName: "Bad User Shop", actor: { assertion: ASSERTIONS.identity(randomUUID()), osUser: "root" } }));
    expect(error.code).toBe(Code.InvalidArgument);
  });

  it("keeps an assertion good for its five minutes only", () => {
    expect(ASSERTION_TTL_MS).toBe(5 * 60_000);
  });
});
