import { describe, expect, it } from "vitest";
import { addDecimal, compareDecimal, isPositive, subtractDecimal } from "./decimal.js";

describe("decimal amounts", () => {
  it("compare exactly at any scale", () => {
    expect(compareDecimal("25.5", "25.50")).toBe(0);
    expect(compareDecimal("25.5", "25.500000000000000001")).toBe(-1);
    expect(compareDecimal("25.500000000000000001", "25.5")).toBe(1);
    expect(compareDecimal("100", "99.999999")).toBe(1);
    expect(compareDecimal("0", "0.000001")).toBe(-1);
    expect(compareDecimal("7", "7")).toBe(0);
  });

  it("add and subtract without a float, answering canonical strings", () => {
    expect(addDecimal("0.1", "0.2")).toBe("0.3");
    expect(addDecimal("10", "15.5")).toBe("25.5");
    expect(addDecimal("0", "0")).toBe("0");
    expect(subtractDecimal("25.5", "10")).toBe("15.5");
    expect(subtractDecimal("25.5", "25.5")).toBe("0");
    expect(subtractDecimal("1", "0.000000000000000001")).toBe("0.999999999999999999");
    expect(subtractDecimal("30.25", "0.25")).toBe("30");
  });

  it("refuses a negative difference and what is not a decimal amount", () => {
    expect(() => subtractDecimal("1", "1.000001")).toThrow("negative");
    expect(() => compareDecimal("1e3", "1")).toThrow('not a decimal amount: "1e3"');
    expect(() => compareDecimal("1", "-1")).toThrow("not a decimal amount");
    expect(() => compareDecimal("1.", "1")).toThrow("not a decimal amount");
    expect(() => compareDecimal("x1", "1")).toThrow("not a decimal amount");
    expect(() => compareDecimal("1x", "1")).toThrow("not a decimal amount");
  });

  it("tell a positive amount from zero", () => {
    expect(isPositive("0")).toBe(false);
    expect(isPositive("0.000")).toBe(false);
    expect(isPositive("0.000000000000000001")).toBe(true);
  });
});
