import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ErrorDetailSchema } from "@payin/proto";
import { Code, ConnectError } from "@payin/rpc";
import { mapError } from "./error-middleware.js";
import { ApiError, httpLayerCode, isPublicErrorCode, PUBLIC_ERRORS, publicCodeFor, type PublicErrorCode } from "./errors.js";

/** A service's answer as the gateway receives it. */
function serviceError(reason: string, code: Code): ConnectError {
  return new ConnectError("the service's message", code, undefined, [{ desc: ErrorDetailSchema, value: create(ErrorDetailSchema, { reason, domain: "test" }) }]);
}

describe("the public error catalogue", () => {
  it("gives every code exactly one HTTP error status", () => {
    const entries = Object.entries(PUBLIC_ERRORS);
    expect(new Set(entries.map(([code]) => code)).size).toBe(entries.length);
    for (const [code, status] of entries) {
      expect(code, code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect(Number.isInteger(status) && status >= 400 && status <= 599, code).toBe(true);
      expect(new ApiError(code as PublicErrorCode, "m").status, code).toBe(status);
      expect(mapError(new ApiError(code as PublicErrorCode, "m")), code).toMatchObject({ status, code });
    }
  });

  it("passes a service reason on only when it is a code of the catalogue with the status the service answered", () => {
    expect(mapError(serviceError("MERCHANT_CLOSED", Code.FailedPrecondition))).toMatchObject({ status: 409, code: "MERCHANT_CLOSED" });
    expect(mapError(serviceError("PAY_IN_INTENT_NOT_FOUND", Code.NotFound))).toMatchObject({ status: 404, code: "PAY_IN_INTENT_NOT_FOUND" });
    // Renamed as the contract shows them.
    expect(mapError(serviceError("INVALID_ARGUMENT", Code.InvalidArgument))).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect(mapError(serviceError("AUTH_INVALID_TOKEN", Code.Unauthenticated))).toMatchObject({ status: 401, code: "AUTH_INVALID_CREDENTIALS" });
  });

  it("never exposes an unknown service reason: the answer has the generic code of its status", () => {
    const cases: [Code, number, PublicErrorCode][] = [
      [Code.InvalidArgument, 400, "VALIDATION_ERROR"],
      [Code.PermissionDenied, 403, "FORBIDDEN"],
      [Code.NotFound, 404, "NOT_FOUND"],
      [Code.FailedPrecondition, 409, "CONFLICT"],
      [Code.AlreadyExists, 409, "CONFLICT"],
      [Code.Aborted, 409, "CONFLICT"],
      [Code.ResourceExhausted, 429, "RATE_LIMITED"],
    ];
    for (const [rpcCode, status, code] of cases) {
      const mapped = mapError(serviceError("SOMETHING_INTERNAL_LEAKED", rpcCode));
      expect(mapped, Code[rpcCode]).toMatchObject({ status, code });
      expect(mapped.code).not.toBe("SOMETHING_INTERNAL_LEAKED");
    }
    // A known code answered with another status than its own is not passed on either.
    expect(mapError(serviceError("MERCHANT_CLOSED", Code.NotFound))).toMatchObject({ status: 404, code: "NOT_FOUND" });
    expect(publicCodeFor("lower_case_reason", 400)).toBe("VALIDATION_ERROR");
  });

  it("answers every code it can produce from the catalogue", () => {
    for (const status of [400, 401, 403, 404, 405, 408, 409, 413, 415, 429, 431]) {
      expect(isPublicErrorCode(publicCodeFor("UNKNOWN", status)), String(status)).toBe(true);
      expect(isPublicErrorCode(httpLayerCode(status)), String(status)).toBe(true);
    }
    expect(httpLayerCode(408)).toBe("BAD_REQUEST");
    expect(httpLayerCode(431)).toBe("BAD_REQUEST");
    expect(isPublicErrorCode("toString")).toBe(false);
  });
});
