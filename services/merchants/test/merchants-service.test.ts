import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { merchantsV1 } from "@payin/proto";
import { Code, reasonOf } from "@payin/rpc";
import { expectFailure, failure } from "@payin/testing";
import { activeMerchant, closedMerchant, startMerchants, UNKNOWN_UUID, type Harness } from "./harness.js";

const { MerchantStatus, MerchantTransition } = merchantsV1;

let harness: Harness;
let client: Harness["client"];

beforeAll(async () => {
  harness = await startMerchants();
  client = harness.client;
});

afterAll(async () => {
  await harness?.close();
});

describe("MerchantsService", () => {
  it("creates merchants inactive and reads them back", async () => {
    const { merchant } = await client.createMerchant({ displayName: "Acme", legalName: "Acme Ltd" });
    expect(merchant?.status).toBe(MerchantStatus.INACTIVE);
    const read = await client.getMerchant({ uuid: merchant!.uuid });
    expect(read.merchant).toMatchObject({ displayName: "Acme", legalName: "Acme Ltd" });
  });

  it.each([
    ["empty display_name", { displayName: "" }],
    ["151-character display_name", { displayName: "x".repeat(151) }],
    ["empty legal_name", { displayName: "ok", legalName: "" }],
    ["256-character legal_name", { displayName: "ok", legalName: "y".repeat(256) }],
    ["display_name holding U+0000", { displayName: "a\u0000b" }],
    ["legal_name holding U+0000", { displayName: "ok", legalName: "\u0000" }],
  ])("refuses %s", async (_name, input) => {
    const error = await failure(client.createMerchant(input));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(reasonOf(error)).toBe("INVALID_ARGUMENT");
  });

  it("answers NOT_FOUND for an unknown or malformed uuid", async () => {
    for (const uuid of ["01a1fe6a-0000-7000-8000-000000000000", "not-a-uuid"]) {
      const error = await failure(client.getMerchant({ uuid }));
      expect(error.code).toBe(Code.NotFound);
      expect(reasonOf(error)).toBe("MERCHANT_NOT_FOUND");
    }
  });

  it("refuses a closed merchant with MERCHANT_CLOSED when asked with requireOpen, and returns it without", async () => {
    const closed = await closedMerchant(client);
    const error = await expectFailure(client.getMerchant({ uuid: closed, requireOpen: true }), Code.FailedPrecondition, "MERCHANT_CLOSED");
    expect(error.rawMessage).toBe("the merchant is closed; its configuration can no longer change");
    expect((await client.getMerchant({ uuid: closed })).merchant).toMatchObject({ uuid: closed, status: MerchantStatus.CLOSED });
    expect((await client.getMerchant({ uuid: closed, requireOpen: false })).merchant?.status).toBe(MerchantStatus.CLOSED);
  });

  it("returns an inactive, active or suspended merchant with requireOpen, and NOT_FOUND still comes first", async () => {
    const { merchant: inactive } = await client.createMerchant({ displayName: "Inactive" });
    const active = await activeMerchant(client, "Active");
    const suspended = await activeMerchant(client, "Suspended");
    await client.transitionMerchant({ uuid: suspended, transition: MerchantTransition.SUSPEND });
    for (const [uuid, status] of [
      [inactive!.uuid, MerchantStatus.INACTIVE],
      [active, MerchantStatus.ACTIVE],
      [suspended, MerchantStatus.SUSPENDED],
    ] as const) {
      expect((await client.getMerchant({ uuid, requireOpen: true })).merchant).toMatchObject({ uuid, status });
    }
    for (const uuid of [UNKNOWN_UUID, "not-a-uuid"]) {
      await expectFailure(client.getMerchant({ uuid, requireOpen: true }), Code.NotFound, "MERCHANT_NOT_FOUND");
    }
  });

  it("follows the transition table and keeps closed terminal", async () => {
    const { merchant } = await client.createMerchant({ displayName: "Lifecycle" });
    const uuid = merchant!.uuid;
    const step = (transition: merchantsV1.MerchantTransition) => client.transitionMerchant({ uuid, transition });
    expect((await failure(step(MerchantTransition.SUSPEND))).code).toBe(Code.FailedPrecondition);
    expect((await step(MerchantTransition.ACTIVATE)).merchant?.status).toBe(MerchantStatus.ACTIVE);
    expect((await failure(step(MerchantTransition.ACTIVATE))).code).toBe(Code.FailedPrecondition);
    expect((await step(MerchantTransition.SUSPEND)).merchant?.status).toBe(MerchantStatus.SUSPENDED);
    expect((await step(MerchantTransition.ACTIVATE)).merchant?.status).toBe(MerchantStatus.ACTIVE);
    expect((await step(MerchantTransition.DEACTIVATE)).merchant?.status).toBe(MerchantStatus.INACTIVE);
    expect((await step(MerchantTransition.CLOSE)).merchant?.status).toBe(MerchantStatus.CLOSED);
    for (const t of [MerchantTransition.ACTIVATE, MerchantTransition.DEACTIVATE, MerchantTransition.SUSPEND, MerchantTransition.CLOSE]) {
      const error = await failure(step(t));
      expect(reasonOf(error)).toBe("MERCHANT_TRANSITION_NOT_ALLOWED");
    }
    expect((await client.getMerchant({ uuid })).merchant?.status).toBe(MerchantStatus.CLOSED);
  });

  it("lets exactly one of many concurrent activations win", async () => {
    const { merchant } = await client.createMerchant({ displayName: "Race" });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => client.transitionMerchant({ uuid: merchant!.uuid, transition: MerchantTransition.ACTIVATE })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const context = await client.getPayinContext({ merchantUuid: merchant!.uuid });
    expect(context.status).toBe(MerchantStatus.ACTIVE);
  });
});
