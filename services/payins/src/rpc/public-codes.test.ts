import { publicCodeFor } from "@payin/http/errors";
import { httpStatusForCode } from "@payin/rpc";
import { describePublicCodes } from "@payin/testing";
import { describe, expect, it } from "vitest";
import { checkoutReasonCodes, reasonCodes } from "./reason-codes.js";

describePublicCodes(reasonCodes);

describe("the checkout reasons as a client of a gateway sees them", () => {
  it("are the generic code of their status (the checkout gateway answers them itself)", () => {
    const seen = Object.fromEntries(Object.entries(checkoutReasonCodes).map(([reason, code]) => {
      const status = httpStatusForCode(code);
      return [reason, `${status} ${publicCodeFor(reason, status)}`];
    }));
    expect(seen).toEqual({
      CHECKOUT_NOT_FOUND: "404 NOT_FOUND",
      CHECKOUT_NOT_DISABLABLE: "409 CONFLICT",
      CHECKOUT_UNAVAILABLE: "409 CONFLICT",
    });
  });
});
