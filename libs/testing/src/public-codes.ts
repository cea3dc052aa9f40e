import { publicCodeFor, PUBLIC_ERRORS } from "@payin/http/errors";
import { httpStatusForCode, type Code } from "@payin/rpc";
import { describe, expect, it } from "vitest";

/** Reasons a gateway answers under another public code, as the contract shows them. */
const RENAMED: Record<string, string> = { INVALID_ARGUMENT: "VALIDATION_ERROR", AUTH_INVALID_TOKEN: "AUTH_INVALID_CREDENTIALS" };

/**
 * Declares the test that a service's reasons, as a client sees them through a
 * gateway, are codes of the public catalogue with the status their RPC code gives.
 */
export function describePublicCodes(reasonCodes: Record<string, Code>): void {
  describe("this service's reasons as a client sees them", () => {
    it("are codes of the public catalogue, with the status their RPC code gives", () => {
      for (const [reason, code] of Object.entries(reasonCodes)) {
        const status = httpStatusForCode(code);
        const expected = RENAMED[reason] ?? reason;
        expect(publicCodeFor(reason, status), reason).toBe(expected);
        expect(PUBLIC_ERRORS[expected as keyof typeof PUBLIC_ERRORS], reason).toBe(status);
      }
    });
  });
}
