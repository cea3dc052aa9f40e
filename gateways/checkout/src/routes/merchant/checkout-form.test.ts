import { describe, expect, it } from "vitest";
import { pageNumber, readCheckoutForm } from "./checkouts.js";

const form = (fields: [string, string][]) => new URLSearchParams(fields);
const valid: [string, string][] = [
  ["description", " Two mugs "],
  ["amount", " 10.50 "],
  ["jurisdiction", "de"],
  ["reference", "INV-1"],
  ["pair", "usdt/bep20"],
];

describe("the new-checkout form", () => {
  it("takes valid values, trimmed, the country in upper case, each pair once", () => {
    const { values, errors } = readCheckoutForm(form([...valid, ["pair", "usdc/erc20"], ["pair", "usdt/bep20"]]));
    expect(errors).toEqual({});
    expect(values).toEqual({ description: "Two mugs", amount: "10.50", jurisdiction: "DE", reference: "INV-1", pairs: ["usdt/bep20", "usdc/erc20"] });
  });

  it("names each field's problem, keeping what was typed", () => {
    const { values, errors } = readCheckoutForm(form([["amount", "1,5"], ["jurisdiction", "ZZ"], ["reference", "x".repeat(256)]]));
    expect(values.amount).toBe("1,5");
    expect(Object.keys(errors).sort()).toEqual(["amount", "description", "jurisdiction", "pairs", "reference"]);
    expect(errors.amount).toMatch(/^Amount must be a decimal string/);
  });

  it("refuses bidirectional controls and zero-width characters in the description and the reference, which the payer reads", () => {
    const with_ = (name: string, value: string) => readCheckoutForm(form([...valid.filter(([k]) => k !== name), [name, value]])).errors;
    for (const hidden of ["\u202E", "\u2067", "\u200B", "\u200F", "\u2060", "\uFEFF"]) {
      expect(with_("description", `Two${hidden} mugs`).description, hidden.codePointAt(0)!.toString(16)).toMatch(/^Remove the invisible or text-direction characters/);
      expect(with_("reference", `INV${hidden}-1`).reference, hidden.codePointAt(0)!.toString(16)).toMatch(/^Remove the invisible or text-direction characters/);
    }
    expect(with_("description", "Zwei Tassen, شكرا")).toEqual({});
  });

  it("applies the API's amount rules", () => {
    const amountError = (amount: string) => readCheckoutForm(form([...valid.filter(([k]) => k !== "amount"), ["amount", amount]])).errors.amount;
    expect(amountError("0.000001")).toBeUndefined();
    expect(amountError("1000000000")).toBeUndefined();
    expect(amountError("0")).toContain("greater than 0");
    expect(amountError("0.0000001")).toContain("at most 6 decimal places");
    expect(amountError("1000000000.000001")).toContain("at most 1000000000");
    expect(amountError(".5")).toContain("decimal string");
    expect(amountError("")).toContain("Enter the amount");
  });

  it("limits reference and description by characters, not bytes, and requires a description", () => {
    const with_ = (name: string, value: string) => readCheckoutForm(form([...valid.filter(([k]) => k !== name), [name, value]])).errors;
    expect(with_("reference", "€".repeat(255)).reference).toBeUndefined();
    expect(with_("reference", "€".repeat(256)).reference).toContain("255");
    expect(with_("description", "😀".repeat(500)).description).toBeUndefined();
    expect(with_("description", "😀".repeat(501)).description).toContain("500");
    expect(with_("description", "   ").description).toContain("Enter a description");
  });

  it("takes any asset with any network (readiness judges them) but nothing else", () => {
    const pairs = (value: string) => readCheckoutForm(form([...valid.filter(([k]) => k !== "pair"), ["pair", value]])).errors.pairs;
    expect(pairs("usdt/erc20")).toBeUndefined();
    expect(pairs("usdc/bep20")).toBeUndefined();
    for (const value of ["dai/erc20", "usdt/tron", "usdt", "usdt/bep20/x", "USDT/BEP20"]) expect(pairs(value), value).toBeDefined();
  });

  it("reads the page number", () => {
    expect(pageNumber(undefined)).toBe(1);
    expect(pageNumber("1")).toBe(1);
    expect(pageNumber("42")).toBe(42);
    expect(pageNumber("1000000")).toBe(1_000_000);
    for (const raw of ["0", "01", "-1", "1.5", "abc", "", "1000001", ["1", "2"]]) expect(pageNumber(raw), String(raw)).toBeNull();
  });
});
