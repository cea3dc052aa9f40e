import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ApiError } from "@payin/http/errors";
import { ErrorDetailSchema } from "@payin/proto";
import { Code, ConnectError } from "@payin/rpc";
import { audited, recordAudit, refusalCode, refusalRecorded, type Actor, type AuditPorts, type ChangeSpec } from "./audit.js";

const PERSON: Actor = { assertion: "pa1.person", osUser: "" };
const OPERATOR: Actor = { assertion: "", osUser: "ops" };
const MERCHANT = "0190a000-0000-7000-8000-0000000000aa";

/** A service refusal as the services answer one: a gRPC code with its reason. */
function serviceError(reason: string, code: Code): ConnectError {
  return new ConnectError("refused", code, undefined, [{ desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { reason, domain: "test" }) }]);
}

/** Ports whose audit log is a list; `failing` makes every record fail. */
function recorder(failing = false) {
  const events: unknown[] = [];
  const reported: unknown[] = [];
  const ports: AuditPorts = {
    merchants: {
      recordAuditEvent: async (request) => {
        if (failing) throw new Error("merchants unreachable");
        events.push(request);
        return {} as never;
      },
    },
    auditFailed: (error, event) => reported.push({ message: (error as Error).message, ...event }),
  };
  return { ports, events, reported };
}

const byMerchants: ChangeSpec = { action: "merchant.activate", target: { type: "merchant", uuid: MERCHANT }, successRecordedBy: "merchants" };
const byOperations: ChangeSpec<{ uuid: string }> = {
  action: "identity.create",
  target: { type: "identity" },
  successRecordedBy: "operations",
  succeeded: (identity) => ({ type: "identity", uuid: identity.uuid }),
};

describe("refusalCode", () => {
  it("is the public code of any answer a client gets as a 4xx, whoever refused", () => {
    expect(refusalCode(new ApiError("FORBIDDEN", "no"))).toBe("FORBIDDEN");
    expect(refusalCode(new ApiError("VALIDATION_ERROR", "bad"))).toBe("VALIDATION_ERROR");
    expect(refusalCode(serviceError("MERCHANT_CLOSED", Code.FailedPrecondition))).toBe("MERCHANT_CLOSED");
    // A service's generic bad field is the API's VALIDATION_ERROR, payinctl's too.
    expect(refusalCode(serviceError("INVALID_ARGUMENT", Code.InvalidArgument))).toBe("VALIDATION_ERROR");
  });

  it("is null for an answer whose outcome is unknown or a fault of ours", () => {
    expect(refusalCode(new ConnectError("down", Code.Unavailable))).toBeNull();
    expect(refusalCode(new ConnectError("slow", Code.DeadlineExceeded))).toBeNull();
    expect(refusalCode(new ConnectError("no reason", Code.PermissionDenied))).toBeNull();
    expect(refusalCode(new ApiError("SERVICE_UNAVAILABLE", "down"))).toBeNull();
    expect(refusalCode(new Error("boom"))).toBeNull();
  });
});

describe("audited", () => {
  it("records a refusal under the change's action and target, and marks it recorded", async () => {
    const { ports, events } = recorder();
    const refusal = serviceError("MERCHANT_TRANSITION_NOT_ALLOWED", Code.FailedPrecondition);
    await expect(audited(ports, PERSON, byMerchants, () => Promise.reject(refusal))).rejects.toBe(refusal);
    expect(events).toEqual([
      {
        event: {
          actor: PERSON,
          action: "merchant.activate",
          targetType: "merchant",
          targetUuid: MERCHANT,
          outcome: "failed",
          errorCode: "MERCHANT_TRANSITION_NOT_ALLOWED",
        },
      },
    ]);
    expect(refusalRecorded(refusal)).toBe(true);
  });

  it("records nothing for a failure without an answer, which is not marked", async () => {
    const { ports, events } = recorder();
    const failure = new ConnectError("down", Code.Unavailable);
    await expect(audited(ports, OPERATOR, byOperations, () => Promise.reject(failure))).rejects.toBe(failure);
    expect(events).toEqual([]);
    expect(refusalRecorded(failure)).toBe(false);
    expect(refusalRecorded(new ApiError("FORBIDDEN", "never through a change"))).toBe(false);
    expect(refusalRecorded("not an error")).toBe(false);
  });

  it("records a success only when the merchants service does not, naming what the result names", async () => {
    const { ports, events } = recorder();
    expect(await audited(ports, PERSON, byMerchants, async () => "made")).toBe("made");
    expect(events).toEqual([]);
    const created = { uuid: "0190a000-0000-7000-8000-0000000000bb" };
    expect(await audited(ports, OPERATOR, byOperations, async () => created)).toBe(created);
    expect(events).toEqual([
      { event: { actor: OPERATOR, action: "identity.create", targetType: "identity", targetUuid: created.uuid, outcome: "succeeded", errorCode: "" } },
    ]);
  });

  it("records only the refusals of a change identity records itself (its audit outbox)", async () => {
    const { ports, events } = recorder();
    const byIdentity: ChangeSpec = { action: "identity.lock", target: { type: "identity", uuid: MERCHANT }, successRecordedBy: "identity" };
    expect(await audited(ports, PERSON, byIdentity, async () => "locked")).toBe("locked");
    expect(events).toEqual([]);
    const refusal = serviceError("IDENTITY_ALREADY_LOCKED", Code.FailedPrecondition);
    await expect(audited(ports, PERSON, byIdentity, () => Promise.reject(refusal))).rejects.toBe(refusal);
    expect(events).toEqual([{ event: expect.objectContaining({ action: "identity.lock", targetUuid: MERCHANT, outcome: "failed", errorCode: "IDENTITY_ALREADY_LOCKED" }) }]);
  });

  it("records a success against the change's target when the result names none", async () => {
    const { ports, events } = recorder();
    await audited(ports, OPERATOR, { ...byMerchants, successRecordedBy: "operations" }, async () => undefined);
    expect(events).toEqual([{ event: expect.objectContaining({ action: "merchant.activate", targetUuid: MERCHANT, outcome: "succeeded" }) }]);
  });

  it("keeps the answer when the record fails, and reports it", async () => {
    const { ports, reported } = recorder(true);
    expect(await audited(ports, OPERATOR, byOperations, async () => ({ uuid: "x" }))).toEqual({ uuid: "x" });
    const refusal = new ApiError("IDENTITY_EMAIL_TAKEN", "taken");
    await expect(audited(ports, OPERATOR, byOperations, () => Promise.reject(refusal))).rejects.toBe(refusal);
    expect(reported).toEqual([
      { message: "merchants unreachable", action: "identity.create", outcome: "succeeded" },
      { message: "merchants unreachable", action: "identity.create", outcome: "failed" },
    ]);
  });
});

describe("recordAudit", () => {
  it("names a person by its uuid, lower case, and the operator by none; a target uuid only when it is one", async () => {
    const { ports, events } = recorder();
    await recordAudit(ports, PERSON, "a", { type: "merchant", uuid: MERCHANT.toUpperCase() }, { outcome: "failed", errorCode: "FORBIDDEN" });
    await recordAudit(ports, OPERATOR, "b", { type: "merchant", uuid: "not-a-uuid" }, { outcome: "succeeded", errorCode: "" });
    expect(events).toEqual([
      { event: expect.objectContaining({ actor: PERSON, action: "a", targetUuid: MERCHANT }) },
      { event: expect.objectContaining({ actor: OPERATOR, action: "b", targetUuid: "" }) },
    ]);
  });

  it("records nothing for an actor nothing vouches for (no assertion, no operator)", async () => {
    const { ports, events } = recorder();
    await recordAudit(ports, { assertion: "", osUser: "" }, "a", { type: "merchant" }, { outcome: "failed", errorCode: "FORBIDDEN" });
    expect(events).toEqual([]);
  });

});
