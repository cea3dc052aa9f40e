import type { Context } from "koa";
import { badRequest } from "./api-error.js";

/**
 * Returns the query parameters as single strings, refusing any name outside
 * `allowed` and any name given twice.
 */
export function readQuery(ctx: Context, allowed: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.query)) {
    if (!allowed.includes(name)) {
      throw badRequest("VALIDATION_ERROR", allowed.length ? `unknown query parameter "${name}"; allowed: ${allowed.join(", ")}` : `unknown query parameter "${name}"`);
    }
    if (Array.isArray(value)) throw badRequest("VALIDATION_ERROR", `query parameter "${name}" must be given once`);
    out[name] = value ?? "";
  }
  return out;
}

/** Parses a whole-number query value within [min, max], or the default when absent. */
export function intParam(query: Record<string, string>, name: string, fallback: number, min: number, max: number): number {
  const text = query[name];
  if (text === undefined) return fallback;
  if (!/^\d{1,10}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw badRequest("VALIDATION_ERROR", `${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(text);
}
