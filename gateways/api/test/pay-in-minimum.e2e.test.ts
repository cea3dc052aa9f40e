/**
 * The smallest amount a pay-in may ask for follows the rails' configuration
 * (the environment every process is given, as the observer reads it): a rail's
 * dust threshold and the decimals of the token its intents are paid in.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createBody, expectError, type TestMerchant, usePlatform } from "./support.js";

const e2e = usePlatform({
  env: {
    // USDC on ERC20 with 2 decimals (its smallest unit 0.01), dust below 0.05;
    // USDT on BEP20 (18 decimals, as on mainnet) with dust below 1.
    ERC20_TOKENS: "usdc:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48:2,usdt:0xdAC17F958D2ee523a2206206994597C13D831ec7:6",
    ERC20_DUST_THRESHOLD: "0.05",
    BEP20_DUST_THRESHOLD: "1",
  },
});
let shop: TestMerchant;

beforeAll(async () => {
  shop = await e2e.operator.merchant({ name: "Configured Shop" });
}, 120_000);

describe("create pay-in intent under configured rails", () => {
  it.each([
    ["usdc", "0.04", "amount must be at least 0.05 USDC on ERC20 (smaller transfers are dust and never count)"],
    ["usdc", "0.001", "amount must be at least 0.05 USDC on ERC20 (smaller transfers are dust and never count)"],
    ["usdc", "1.005", "amount must be a whole multiple of 0.01 USDC on ERC20, the token's smallest unit (at least 0.05)"],
    ["usdt", "0.999999", "amount must be at least 1 USDT on BEP20 (smaller transfers are dust and never count)"],
  ])("refuses %s %s with 400 naming the configured minimum", async (asset, amount, message) => {
    const res = await e2e.api.create(shop.uuid, shop.token, createBody({ asset, amount }));
    expect(expectError(res, 400, "VALIDATION_ERROR").message).toBe(message);
  });

  it("stored nothing for the refused creates, and accepts the configured minimums", async () => {
    expect(await e2e.api.total(shop)).toBe(0);
    for (const [asset, amount] of [["usdc", "0.05"], ["usdc", "1.01"], ["usdt", "1"]]) {
      const res = await e2e.api.create(shop.uuid, shop.token, createBody({ asset, amount }));
      expect(res.status, res.text).toBe(201);
      expect(res.body.expected_amount).toBe(amount);
    }
    expect(await e2e.api.total(shop)).toBe(3);
  });
});
