import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { payinsV1 } from "@payin/proto";
import { Code, ConnectError, reasonOf } from "@payin/rpc";
import type { BatchItemError } from "@payin/proto";
import { expectFailure } from "@payin/testing";
import { startPayinsHarness } from "./harness.js";
import type { AddressAllocator, MerchantDirectory } from "../src/domain/create-pay-in-intent.js";
import type { PayInIntent } from "../src/domain/pay-in-intent.js";
import { PayInRepository } from "../src/store/pay-in-repository.js";


// Reads never reach the merchants or allocation services; these fail loudly if they did.
const merchants: MerchantDirectory = {
  payinContext: () => Promise.reject(new Error("reads must not ask the merchants service")),
};
const allocator: AddressAllocator = {
  allocate: () => Promise.reject(new Error("reads must not ask the allocation service")),
};

let orm: MikroORM;
let client: Client<typeof payinsV1.PayinsService>;
let repo: PayInRepository;

beforeAll(async () => {
  const harness = await startPayinsHarness({ merchants, allocator });
  ({ orm, client } = harness);
  repo = new PayInRepository(harness.db);
});

afterAll(async () => {
  await orm?.close();
});

/** Stores an intent of `merchantUuid` the way a create does (claim, then complete). */
async function storedIntent(merchantUuid: string, reference: string): Promise<PayInIntent> {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const intent: PayInIntent = {
    intentUuid: uuidv7(),
    merchantUuid,
    status: "created",
    asset: "usdc",
    rail: "erc20",
    expectedAmount: "12.5",
    // Addresses are unique; any distinct 20 bytes do here.
    address: `0x${randomBytes(20).toString("hex")}`,
    allocationReference: "m/44'/60'/0'/0/1",
    reference,
    jurisdiction: "DE",
    createdAt: now,
    expiresAt: new Date(now.getTime() + 3_600_000),
    updatedAt: now,
  };
  const key = `key-${intent.intentUuid}`;
  const requestHash = createHash("sha256").update(key).digest("hex");
  await repo.claimKey({ merchantUuid, key, requestHash, newIntentUuid: intent.intentUuid, now });
  await repo.completeKey(intent, key);
  return intent;
}

describe("PayinsService.BatchGetPayInIntents", () => {
  it("answers each lookup in order: its intent, or none for a missing one, another merchant's or a malformed uuid", async () => {
    const shop = uuidv7();
    const other = uuidv7();
    const [a, b] = [await storedIntent(shop, "a"), await storedIntent(shop, "b")];
    const theirs = await storedIntent(other, "theirs");

    const { results } = await client.batchGetPayInIntents({
      lookups: [
        { merchantUuid: shop, intentUuid: b.intentUuid },
        { merchantUuid: shop, intentUuid: uuidv7() },
        { merchantUuid: shop, intentUuid: theirs.intentUuid },
        { merchantUuid: other, intentUuid: theirs.intentUuid },
        { merchantUuid: shop, intentUuid: "not-a-uuid" },
        { merchantUuid: "not-a-uuid", intentUuid: a.intentUuid },
        // Uuids are canonical lower case here (the gateway lower-cases them).
        { merchantUuid: shop, intentUuid: a.intentUuid.toUpperCase() },
        { merchantUuid: shop, intentUuid: a.intentUuid },
        { merchantUuid: shop, intentUuid: b.intentUuid },
      ],
    });
    expect(results.map((r) => r.intent?.reference ?? null)).toEqual(["b", null, null, "theirs", null, null, null, "a", "b"]);
    // The same intent as the single read gives.
    const single = await client.getPayInIntent({ merchantUuid: shop, intentUuid: a.intentUuid });
    expect(results[7]!.intent).toEqual(single.intent);
    expect(single.intent).toMatchObject({ intentUuid: a.intentUuid, merchantUuid: shop, expectedAmount: "12.5", address: a.address, jurisdiction: "DE" });
  });

  it("refuses no lookups and more than 1,000 with INVALID_ARGUMENT, reading nothing", async () => {
    const shop = uuidv7();
    const lookup = { merchantUuid: shop, intentUuid: uuidv7() };
    await expectFailure(client.batchGetPayInIntents({ lookups: [] }), Code.InvalidArgument, "VALIDATION_ERROR");
    await expectFailure(client.batchGetPayInIntents({ lookups: Array(1_001).fill(lookup) }), Code.InvalidArgument, "VALIDATION_ERROR");
    const { results } = await client.batchGetPayInIntents({ lookups: Array(1_000).fill(lookup) });
    expect(results).toHaveLength(1_000);
    expect(results.every((r) => r.intent === undefined)).toBe(true);
  });
});

describe("PayinsService.BatchCreatePayInIntents", () => {
  it("refuses no creates and more than 1,000 with INVALID_ARGUMENT, creating nothing", async () => {
    await expectFailure(client.batchCreatePayInIntents({ requests: [] }), Code.InvalidArgument, "VALIDATION_ERROR");
    const request = { merchantUuid: uuidv7(), idempotencyKey: "k", asset: "usdt", amount: "1", jurisdiction: "DE" };
    await expectFailure(client.batchCreatePayInIntents({ requests: Array(1_001).fill(request) }), Code.InvalidArgument, "VALIDATION_ERROR");
  });

  it("answers each create with its own result: a bad request fails alone, as its own call would", async () => {
    const shop = uuidv7();
    const { results } = await client.batchCreatePayInIntents({
      requests: [
        { merchantUuid: shop, idempotencyKey: "a", asset: "doge", amount: "1", jurisdiction: "DE" },
        { merchantUuid: shop, idempotencyKey: "", asset: "usdt", amount: "1", jurisdiction: "DE" },
      ],
    });
    const single = await client.createPayInIntent({ merchantUuid: shop, idempotencyKey: "a", asset: "doge", amount: "1", jurisdiction: "DE" }).catch((e: unknown) => e as ConnectError);
    expect(results.map((r) => r.outcome.case)).toEqual(["error", "error"]);
    const [first, second] = results.map((r) => r.outcome.value as BatchItemError);
    expect({ code: first!.code, reason: first!.detail?.reason, message: first!.message }).toEqual({
      code: (single as ConnectError).code,
      reason: reasonOf(single as ConnectError),
      message: (single as ConnectError).rawMessage,
    });
    expect(second!.detail?.reason).toBe("IDEMPOTENCY_KEY_INVALID");
    expect(second!.code).toBe(Code.InvalidArgument);
  });
});

