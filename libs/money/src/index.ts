/**
 * Exact money: decimal strings at the edge, bigint base units on chain. No JS
 * number ever holds an amount.
 */

export { ASSETS, RAIL_FOR_ASSET, RAILS, ROUTED_PAIRS, isAsset, isRail, type Asset, type Rail } from "./routing.js";

const INPUT = /^\d+(\.\d+)?$/;
export const MAX_FRACTION_DIGITS = 6;
export const MAX_AMOUNT = 1_000_000_000n;

/** Why an amount was refused; the message is safe to show a client. */
export class AmountError extends Error {}

/**
 * Parses a client amount into its canonical decimal string: no sign, exponent or
 * grouping, no leading zeros in the integer part, no trailing zeros or dot in the
 * fraction (`"010.500"` → `"10.5"`). Throws AmountError unless the value matches
 * `^\d+(\.\d+)?$`, is > 0, has at most 6 fractional digits after trimming and is
 * at most 1,000,000,000.
 */
export function canonicalAmount(input: string): string {
  if (typeof input !== "string" || !INPUT.test(input)) {
    throw new AmountError("amount must be a decimal string like \"10.50\": digits, optionally one '.' and more digits");
  }
  const [intRaw, fracRaw = ""] = input.split(".") as [string, string?];
  const intPart = intRaw.replace(/^0+(?=\d)/, "");
  const frac = fracRaw.replace(/0+$/, "");
  if (frac.length > MAX_FRACTION_DIGITS) {
    throw new AmountError(`amount must have at most ${MAX_FRACTION_DIGITS} decimal places`);
  }
  const units = BigInt(intPart) * 10n ** 6n + BigInt((frac || "0").padEnd(MAX_FRACTION_DIGITS, "0"));
  if (units === 0n) throw new AmountError("amount must be greater than 0");
  if (units > MAX_AMOUNT * 10n ** 6n) throw new AmountError("amount must be at most 1000000000");
  return frac ? `${intPart}.${frac}` : intPart;
}

/** Converts a canonical decimal string to base units of a token with `decimals` decimals. */
export function toBaseUnits(amount: string, decimals: number): bigint {
  const [intPart, frac = ""] = amount.split(".") as [string, string?];
  if (frac.length > decimals) throw new AmountError(`amount has more than ${decimals} decimal places`);
  return BigInt(intPart) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, "0") || "0");
}

/** Converts base units back to a canonical decimal string. */
export function fromBaseUnits(units: bigint, decimals: number): string {
  const scale = 10n ** BigInt(decimals);
  const intPart = units / scale;
  const frac = (units % scale).toString().padStart(decimals, "0").replace(/0+$/, "");
  return frac ? `${intPart}.${frac}` : intPart.toString();
}
