import { describe, expect, it } from "vitest";
import { payinsV1 } from "@payin/proto";
import { CALLERS } from "../src/rpc/callers.js";

const procedure = (method: string) => `${payinsV1.PayinsService.typeName}/${method}`;

describe("payins' callers", () => {
  it("lets the api create, read and list pay-ins (in batches) and their transfers, the observer record observations, the checkout gateway run checkouts and read their intents, the CLI (and npm start's demo) create checkouts, and no other service anything", () => {
    expect([...CALLERS.get("api")!].sort()).toEqual(
      ["BatchCreatePayInIntents", "BatchGetPayInIntents", "ListPayInIntents", "ListPayInTransfers"].map(procedure).sort(),
    );
    expect([...CALLERS.get("observer")!]).toEqual([procedure("RecordObservations")]);
    expect([...CALLERS.get("checkout")!].sort()).toEqual(
      [
        "CreateCheckoutSession", "GetCheckoutSession", "ListCheckoutSessions", "DisableCheckoutSession",
        "GetCheckoutByToken", "BatchGetCheckoutsByToken", "StartCheckout", "GetPayInIntent", "ListPayInIntents", "ListPayInTransfers",
      ].map(procedure).sort(),
    );
    expect([...CALLERS.get("payinctl")!]).toEqual([procedure("CreateCheckoutSession")]);
    for (const caller of ["payins", "allocation"]) expect(CALLERS.get(caller), caller).toBeUndefined();
  });
});
