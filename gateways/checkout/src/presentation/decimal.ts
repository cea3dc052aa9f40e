import { fromBaseUnits, toBaseUnits } from "@payin/money";

/** A non-negative decimal string as the services answer amounts: `25.5`, `0.000001`, `100`. */
const DECIMAL = /^\d+(\.\d+)?$/;

function fractionDigits(value: string): number {
  if (!DECIMAL.test(value)) throw new Error(`not a decimal amount: ${JSON.stringify(value)}`);
  return value.split(".")[1]?.length ?? 0;
}

/** Both amounts as integers of one common scale, and that scale: exact, never a float. */
function scaled(a: string, b: string): { a: bigint; b: bigint; scale: number } {
  const scale = Math.max(fractionDigits(a), fractionDigits(b));
  return { a: toBaseUnits(a, scale), b: toBaseUnits(b, scale), scale };
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  const s = scaled(a, b);
  return s.a < s.b ? -1 : s.a > s.b ? 1 : 0;
}

/** `a + b`, canonical (no trailing zeros). */
export function addDecimal(a: string, b: string): string {
  const s = scaled(a, b);
  return fromBaseUnits(s.a + s.b, s.scale);
}

/** `a - b` for `a >= b`, canonical; throws when `b` is greater. */
export function subtractDecimal(a: string, b: string): string {
  const s = scaled(a, b);
  if (s.b > s.a) throw new Error("the difference would be negative");
  return fromBaseUnits(s.a - s.b, s.scale);
}

/** Whether an amount is greater than zero. */
export function isPositive(amount: string): boolean {
  return compareDecimal(amount, "0") > 0;
}
