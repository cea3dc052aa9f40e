import { describe, expect, it } from "vitest";
import { Code, ConnectError } from "@payin/rpc";
import { recordFailure } from "./relay.js";

describe("recordFailure", () => {
  it("takes INVALID_ARGUMENT as refused, with notifications' message", () => {
    const error = new ConnectError('events[3]: type "pay_in_intent.refunded" is not an event type this service records', Code.InvalidArgument);
    expect(recordFailure(error)).toEqual({ kind: "refused", message: 'events[3]: type "pay_in_intent.refunded" is not an event type this service records' });
  });

  it.each([
    Code.Unavailable, Code.DeadlineExceeded, Code.Canceled, Code.Internal, Code.Unknown, Code.ResourceExhausted,
    Code.FailedPrecondition, Code.Aborted, Code.Unauthenticated, Code.PermissionDenied, Code.Unimplemented, Code.NotFound,
  ])("retries the batch on code %s", (code) => {
    expect(recordFailure(new ConnectError("no", code))).toEqual({ kind: "retry" });
  });

  it("retries on anything that is not an RPC error", () => {
    expect(recordFailure(new Error("socket hang up"))).toEqual({ kind: "retry" });
    expect(recordFailure(undefined)).toEqual({ kind: "retry" });
  });
});
