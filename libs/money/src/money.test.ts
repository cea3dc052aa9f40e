import { describe, expect, it } from "vitest";
import { AmountError, RAIL_FOR_ASSET, ROUTED_PAIRS, canonicalAmount, fromBaseUnits, isAsset, toBaseUnits } from "./index.js";

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
});

describe("base units", () => {
  it("round-trips at 6 and 18 decimals", () => {
    expect(toBaseUnits("10.5", 6)).toBe(10_500_000n);
    expect(toBaseUnits("10.5", 18)).toBe(10_500_000_000_000_000_000n);
    expect(fromBaseUnits(10_500_000n, 6)).toBe("10.5");
    expect(fromBaseUnits(1n, 18)).toBe("0.000000000000000001");
    expect(fromBaseUnits(5_000_000n, 6)).toBe("5");
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
  });
});
