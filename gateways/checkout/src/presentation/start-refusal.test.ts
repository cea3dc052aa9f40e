import { describe, expect, it } from "vitest";
import { PUBLIC_ERRORS } from "@payin/http";
import { badPairRefusal, startRefusal } from "./start-refusal.js";

describe("startRefusal", () => {
  it("answers a disabled checkout as no longer available (409)", () => {
    expect(startRefusal("CHECKOUT_UNAVAILABLE")).toEqual({
      code: "CONFLICT",
      title: "This payment link is no longer available",
      message: "The seller has withdrawn this payment link, so no payment can be started with it. Nothing was charged. Ask the seller for a new link.",
    });
  });

  it.each(["MERCHANT_NOT_ACTIVE", "PAYIN_NOT_READY", "PAYIN_NOT_ALLOWED", "WALLET_NOT_READY", "OPERATING_PROFILE_MISSING"])(
    "answers %s as payment unavailable right now (409)",
    (reason) => {
      expect(startRefusal(reason)).toEqual({
        code: "CONFLICT",
        title: "Payment is unavailable right now",
        message: "The seller cannot take this payment at the moment. Nothing was charged. Please try again later, or contact the seller.",
      });
    },
  );

  it.each(["VALIDATION_ERROR", "INVALID_ARGUMENT"])("answers %s as a choice to make again (400)", (reason) => {
    expect(startRefusal(reason)).toEqual(badPairRefusal());
    expect(badPairRefusal()).toEqual({
      code: "VALIDATION_ERROR",
      title: "Choose how you want to pay",
      message: "Go back to the payment page, choose one of the offered tokens and networks, and start the payment again.",
    });
  });

  it("answers a start racing another as being prepared (409)", () => {
    expect(startRefusal("IDEMPOTENCY_KEY_IN_USE")).toEqual({
      code: "CONFLICT",
      title: "Your payment is being prepared",
      message:
        "The payment is being started right now. Go back to the payment page in a moment: it will show where to pay. If it still offers to start, start again: that never creates a second payment.",
    });
  });

  it("leaves an unknown token and anything else to the generic answers", () => {
    for (const reason of [undefined, "", "CHECKOUT_NOT_FOUND", "INTERNAL", "toString", "__proto__", "constructor"]) expect(startRefusal(reason)).toBeUndefined();
  });

  it("uses codes of the public catalogue with the statuses the contract gives", () => {
    expect(PUBLIC_ERRORS[startRefusal("CHECKOUT_UNAVAILABLE")!.code]).toBe(409);
    expect(PUBLIC_ERRORS[startRefusal("WALLET_NOT_READY")!.code]).toBe(409);
    expect(PUBLIC_ERRORS[badPairRefusal().code]).toBe(400);
  });
});
