import { describe, expect, it } from "vitest";
import { minimumAmount, minimumUnits, payability, payableTerms, payableTermsOf, railsFromEnv, type PayableTerms } from "./index.js";

/** USDT on BEP20 as on mainnet: 18 decimals, dust below 0.001. */
const BSC_USDT: PayableTerms = { asset: "usdt", rail: "bep20", decimals: 18, dustThreshold: 10n ** 15n };
/** USDC on ERC20 as on mainnet: 6 decimals, dust below 0.001. */
const ETH_USDC: PayableTerms = { asset: "usdc", rail: "erc20", decimals: 6, dustThreshold: 1_000n };
/** A token of 2 decimals, dust below 0.05. */
const CENTS: PayableTerms = { asset: "usdc", rail: "erc20", decimals: 2, dustThreshold: 5n };

describe("payability", () => {
  it.each([
    ["0.001", BSC_USDT],
    ["0.0010", BSC_USDT],
    ["0.001000000000000001", BSC_USDT],
    ["0.0011", BSC_USDT],
    ["10.5", BSC_USDT],
    ["1000000000", BSC_USDT],
    ["0.001", ETH_USDC],
    ["0.001001", ETH_USDC],
    ["0.05", CENTS],
    ["0.050000", CENTS],
    ["0.06", CENTS],
    ["12", CENTS],
    ["007.10", CENTS],
  ])("takes %s on %o", (amount, terms) => {
    expect(payability(amount, terms)).toEqual({ payable: true });
  });

  it("refuses an amount below the dust threshold, naming the minimum in the token and rail", () => {
    expect(payability("0.0001", BSC_USDT)).toEqual({
      payable: false,
      reason: "below_minimum",
      minimum: "0.001",
      unit: "0.000000000000000001",
      message: "amount must be at least 0.001 USDT on BEP20 (smaller transfers are dust and never count)",
    });
    expect(payability("0.0005", ETH_USDC)).toEqual({
      payable: false,
      reason: "below_minimum",
      minimum: "0.001",
      unit: "0.000001",
      message: "amount must be at least 0.001 USDC on ERC20 (smaller transfers are dust and never count)",
    });
  });

  it("refuses one base unit below the threshold, and zero", () => {
    expect(payability("0.000999999999999999", BSC_USDT)).toMatchObject({ payable: false, reason: "below_minimum", minimum: "0.001" });
    expect(payability("0.000999", ETH_USDC)).toMatchObject({ payable: false, reason: "below_minimum" });
    expect(payability("0", ETH_USDC)).toMatchObject({ payable: false, reason: "below_minimum" });
    expect(payability("0.000", BSC_USDT)).toMatchObject({ payable: false, reason: "below_minimum" });
    expect(payability("0.04", CENTS)).toMatchObject({ payable: false, reason: "below_minimum", minimum: "0.05" });
  });

  it("refuses an amount finer than the token's smallest unit, naming the unit and the minimum", () => {
    expect(payability("10.001", CENTS)).toEqual({
      payable: false,
      reason: "finer_than_unit",
      minimum: "0.05",
      unit: "0.01",
      message: "amount must be a whole multiple of 0.01 USDC on ERC20, the token's smallest unit (at least 0.05)",
    });
    expect(payability("0.051", CENTS)).toMatchObject({ payable: false, reason: "finer_than_unit" });
    expect(payability("1.0000001", ETH_USDC)).toMatchObject({ payable: false, reason: "finer_than_unit", unit: "0.000001" });
  });

  it("says below the minimum when an amount is both below it and finer than the unit", () => {
    expect(payability("0.001", CENTS)).toMatchObject({ payable: false, reason: "below_minimum", minimum: "0.05" });
    expect(payability("0.049", CENTS)).toMatchObject({ payable: false, reason: "below_minimum" });
  });

  it("compares exactly at the finer of the two scales (no rounding to the token's unit)", () => {
    // 0.0499 rounds to 0.05 at 2 decimals, but is below it.
    expect(payability("0.0499", CENTS)).toMatchObject({ reason: "below_minimum" });
    // 0.0501 is above the minimum, but finer than the unit.
    expect(payability("0.0501", CENTS)).toMatchObject({ reason: "finer_than_unit" });
  });

  it("takes a token of 0 decimals in whole units", () => {
    const whole: PayableTerms = { asset: "usdt", rail: "bep20", decimals: 0, dustThreshold: 2n };
    expect(payability("2", whole)).toEqual({ payable: true });
    expect(payability("2.0", whole)).toEqual({ payable: true });
    expect(payability("1", whole)).toMatchObject({ reason: "below_minimum", minimum: "2", unit: "1" });
    expect(payability("2.5", whole)).toMatchObject({
      reason: "finer_than_unit",
      message: "amount must be a whole multiple of 1 USDT on BEP20, the token's smallest unit (at least 2)",
    });
  });

  it("throws on a string that is no decimal amount (callers pass canonical amounts)", () => {
    for (const bad of ["", "1.", ".5", "-1", "1e3", "1,5", " 1", "1 ", "abc", "1.2.3"]) {
      expect(() => payability(bad, ETH_USDC), bad).toThrow(`not a decimal amount: ${JSON.stringify(bad)}`);
    }
  });
});

describe("minimumUnits and minimumAmount", () => {
  it("are the dust threshold", () => {
    expect(minimumUnits(BSC_USDT)).toBe(10n ** 15n);
    expect(minimumAmount(BSC_USDT)).toBe("0.001");
    expect(minimumAmount(CENTS)).toBe("0.05");
  });

  it("are one unit when there is no threshold (zero is always dust), or a threshold of one unit", () => {
    for (const dustThreshold of [0n, 1n]) {
      expect(minimumUnits({ ...ETH_USDC, dustThreshold })).toBe(1n);
      expect(minimumAmount({ ...ETH_USDC, dustThreshold })).toBe("0.000001");
    }
    expect(payability("0.000001", { ...ETH_USDC, dustThreshold: 0n })).toEqual({ payable: true });
    expect(payability("0", { ...ETH_USDC, dustThreshold: 0n })).toMatchObject({ reason: "below_minimum", minimum: "0.000001" });
  });

  it("are two units for a threshold of two", () => {
    expect(minimumUnits({ ...ETH_USDC, dustThreshold: 2n })).toBe(2n);
    expect(payability("0.000001", { ...ETH_USDC, dustThreshold: 2n })).toMatchObject({ reason: "below_minimum", minimum: "0.000002" });
  });
});

describe("payableTerms", () => {
  it("reads the mainnet defaults: USDT of 18 decimals on BEP20 and USDC of 6 on ERC20, both from 0.001", () => {
    const terms = payableTermsOf(railsFromEnv({}));
    expect(terms).toEqual({ bep20: BSC_USDT, erc20: ETH_USDC });
    expect(minimumAmount(terms.bep20)).toBe("0.001");
    expect(minimumAmount(terms.erc20)).toBe("0.001");
  });

  it("follows the rail's dust threshold and its token's decimals, the routed token only", () => {
    const config = railsFromEnv({
      ERC20_DUST_THRESHOLD: "0.25",
      ERC20_TOKENS: "usdt:0xdAC17F958D2ee523a2206206994597C13D831ec7:18,usdc:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48:2",
    });
    expect(payableTerms(config.rails.erc20)).toEqual({ asset: "usdc", rail: "erc20", decimals: 2, dustThreshold: 25n });
    expect(payability("0.2", payableTerms(config.rails.erc20))).toMatchObject({ reason: "below_minimum", minimum: "0.25" });
    expect(payability("0.255", payableTerms(config.rails.erc20))).toMatchObject({ reason: "finer_than_unit", unit: "0.01" });
  });

  it("rounds a threshold finer than the token up to its unit, as the observer does", () => {
    const config = railsFromEnv({ ERC20_DUST_THRESHOLD: "0.001", ERC20_TOKENS: "usdc:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48:2" });
    expect(minimumAmount(payableTerms(config.rails.erc20))).toBe("0.01");
    const none = railsFromEnv({ BEP20_DUST_THRESHOLD: "0" });
    expect(minimumAmount(payableTerms(none.rails.bep20))).toBe("0.000000000000000001");
  });
});
