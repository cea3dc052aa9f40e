import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@payin/ids";
import { Code, fromTimestamp } from "@payin/rpc";
import { expectFailure, failure } from "@payin/testing";
import { startMerchantsServer, type MerchantsServer } from "./harness.js";

// AppendAuditEvents: identity's outbox relay hands over the events of identity's
// own changes, each kept once with its own uuid, time and actor.
let server: MerchantsServer;

beforeAll(async () => {
  server = await startMerchantsServer("append_audit");
});

afterAll(async () => {
  await server?.close();
});

const PERSON = "0190a000-0000-7000-8000-0000000000c1";
const at = new Date("2026-11-20T10:00:00.123Z");

function recorded(over: Record<string, unknown> = {}) {
  return {
    eventUuid: uuidv7(),
    actor: { kind: "identity", uuid: PERSON, requestId: "req-outbox-1", osUser: "" },
    action: "identity.create",
    targetType: "identity",
    targetUuid: uuidv7(),
    outcome: "succeeded",
    errorCode: "",
    occurredAt: timestampFromDate(at),
    ...over,
  };
}

async function logged(eventUuid: string) {
  const { events } = await server.client("test").listAuditEvents({ limit: 100 });
  return events.filter((e) => e.eventUuid === eventUuid);
}

describe("AppendAuditEvents", () => {
  it("keeps each event with its own uuid, time and actor, and a repeat of one already kept changes nothing", async () => {
    const identity = server.client("identity");
    const person = recorded();
    const operator = recorded({ actor: { kind: "operator_cli", uuid: "", requestId: "", osUser: "alice.ops" }, action: "identity.lock" });
    const system = recorded({ actor: { kind: "system", uuid: "", requestId: "", osUser: "" }, action: "identity.bootstrap" });
    expect((await identity.appendAuditEvents({ events: [person, operator, system] })).appended).toBe(3);
    const [kept] = await logged(person.eventUuid);
    expect(kept).toMatchObject({ eventUuid: person.eventUuid, action: "identity.create", targetUuid: person.targetUuid, outcome: "succeeded" });
    expect(kept!.actor).toMatchObject({ kind: "identity", uuid: PERSON, requestId: "req-outbox-1", osUser: "" });
    expect(fromTimestamp(kept!.occurredAt)).toEqual(at);
    expect((await logged(operator.eventUuid))[0]!.actor).toMatchObject({ kind: "operator_cli", uuid: "", osUser: "alice.ops" });
    expect((await logged(system.eventUuid))[0]!.actor).toMatchObject({ kind: "system", uuid: "" });
    // The relay sends a batch again when merchants' answer was lost: nothing is kept twice.
    expect((await identity.appendAuditEvents({ events: [person, recorded({ eventUuid: operator.eventUuid, action: "identity.disable" })] })).appended).toBe(0);
    expect(await logged(person.eventUuid)).toHaveLength(1);
    expect((await logged(operator.eventUuid)).map((e) => e.action)).toEqual(["identity.lock"]);
  });

  it("checks every event before keeping any: one malformed event refuses the batch", async () => {
    const identity = server.client("identity");
    const good = recorded();
    for (const bad of [
      recorded({ action: "Not An Action" }),
      recorded({ eventUuid: "not-a-uuid" }),
      recorded({ occurredAt: undefined }),
      recorded({ outcome: "failed", errorCode: "" }),
      recorded({ actor: { kind: "identity", uuid: "", requestId: "", osUser: "" } }),
      recorded({ actor: { kind: "operator_cli", uuid: "", requestId: "", osUser: "" } }),
      recorded({ actor: { kind: "operator_cli", uuid: "", requestId: "", osUser: "bob smith" } }),
      recorded({ actor: { kind: "system", uuid: "", requestId: "", osUser: "root" } }),
      recorded({ actor: { kind: "identity", uuid: PERSON, requestId: "", osUser: "", assertion: "pa1.claimed" } }),
    ]) {
      await expectFailure(identity.appendAuditEvents({ events: [good, bad] }), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
    await expectFailure(identity.appendAuditEvents({ events: Array.from({ length: 101 }, () => recorded()) }), Code.InvalidArgument, "INVALID_ARGUMENT");
    expect(await logged(good.eventUuid)).toEqual([]);
  });

  it("is identity's, allocation's and notifications' alone (their outboxes): no other caller may write events with an actor of its choosing", async () => {
    expect((await server.client("allocation").appendAuditEvents({ events: [recorded()] })).appended).toBe(1);
    expect((await server.client("notifications").appendAuditEvents({ events: [recorded()] })).appended).toBe(1);
    for (const caller of ["api", "payinctl", "checkout", "payins", "stack"]) {
      const error = await failure(server.client(caller).appendAuditEvents({ events: [recorded()] }));
      expect({ caller, code: error.code }).toEqual({ caller, code: Code.PermissionDenied });
    }
  });
});
