import { describe, expect, it } from "vitest";
import { AmountError, RAIL_FOR_ASSET, ROUTED_PAIRS, canonicalAmount, fromBaseUnits, isAsset, isRail, toBaseUnits } from "./index.js";

describe("canonicalAmount", () => {
  it.each([
    ["010.500", "10.5"],
    ["5.000", "5"],
    ["0.000001", "0.000001"],
    ["1000000000", "1000000000"],
    ["1000000000.000000", "1000000000"],
    ["00012", "12"],
    ["0.1", "0.1"],
  ])("%s -> %s", (input, out) => expect(canonicalAmount(input)).toBe(out));

  it.each([
    "", "0", "0.0", "-1", "+1", "1e3", "1,000", "1.", ".5", " 1", "1 ", "１", "0.0000001", "1000000000.000001",
    "10.1234567", "NaN", "Infinity", "0x10",
  ])("refuses %j", (input) => expect(() => canonicalAmount(input)).toThrow(AmountError));

  it("accepts trailing zeros beyond six places when they trim away", () => {
    expect(canonicalAmount("1.50000000000")).toBe("1.5");
  });

  it("refuses a value that is not a string with AmountError, not a TypeError", () => {
    for (const input of [10, 10n, null, undefined, ["1"]]) {
      expect(() => canonicalAmount(input as unknown as string)).toThrow(AmountError);
    }
  });

  // The messages go back to clients as they are.
  it.each([
    ["1e3", "amount must be a decimal string like \"10.50\": digits, optionally one '.' and more digits"],
    ["0.1234567", "amount must have at most 6 decimal places"],
    ["0.000", "amount must be greater than 0"],
    ["1000000000.000001", "amount must be at most 1000000000"],
  ])("explains why %j is refused", (input, message) => {
    expect(() => canonicalAmount(input)).toThrow(new AmountError(message));
  });
});

describe("base units", () => {
  it("round-trips at 6 and 18 decimals", () => {
    expect(toBaseUnits("10.5", 6)).toBe(10_500_000n);
    expect(toBaseUnits("10.5", 18)).toBe(10_500_000_000_000_000_000n);
    expect(fromBaseUnits(10_500_000n, 6)).toBe("10.5");
    expect(fromBaseUnits(1n, 18)).toBe("0.000000000000000001");
    expect(fromBaseUnits(5_000_000n, 6)).toBe("5");
  });

  it("converts whole amounts, which have no fraction", () => {
    expect(toBaseUnits("10", 6)).toBe(10_000_000n);
    expect(toBaseUnits("1000000000", 18)).toBe(10n ** 27n);
    expect(toBaseUnits("7", 0)).toBe(7n);
  });

  it("converts at the token's full precision", () => {
    expect(toBaseUnits("0.000001", 6)).toBe(1n);
    expect(toBaseUnits("999999999.999999", 6)).toBe(999_999_999_999_999n);
    expect(toBaseUnits("0.000000000000000001", 18)).toBe(1n);
    expect(toBaseUnits("1.5", 1)).toBe(15n);
  });

  // Chain observation compares these units with what arrived: an amount finer
  // than the token can carry must never be rounded into a match.
  it("refuses more fractional digits than the token has", () => {
    expect(() => toBaseUnits("0.0000001", 6)).toThrow(new AmountError("amount has more than 6 decimal places"));
    expect(() => toBaseUnits("1.5", 0)).toThrow(new AmountError("amount has more than 0 decimal places"));
    expect(() => toBaseUnits("0.0000000000000000001", 18)).toThrow(AmountError);
  });

  it("round-trips every canonical amount at 6 and 18 decimals", () => {
    for (const amount of ["0.000001", "1", "10.5", "123456.789", "1000000000"]) {
      expect(fromBaseUnits(toBaseUnits(amount, 6), 6)).toBe(amount);
      expect(fromBaseUnits(toBaseUnits(amount, 18), 18)).toBe(amount);
    }
  });
});

describe("routing", () => {
  it("routes usdt to bep20 and usdc to erc20, in one table both services read", () => {
    expect(RAIL_FOR_ASSET).toEqual({ usdt: "bep20", usdc: "erc20" });
    expect(ROUTED_PAIRS).toEqual([
      { asset: "usdt", rail: "bep20" },
      { asset: "usdc", rail: "erc20" },
    ]);
    expect(["usdt", "usdc", "USDT", "dai", ""].map(isAsset)).toEqual([true, true, false, false, false]);
    expect(["bep20", "erc20", "BEP20", "trc20", ""].map(isRail)).toEqual([true, true, false, false, false]);
  });
});
