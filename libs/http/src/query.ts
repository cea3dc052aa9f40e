import type { Context } from "koa";
import { validationError } from "./errors.js";
import { textProblem } from "./text.js";

/**
 * Returns the query parameters as single strings, refusing any name outside
 * `allowed`, any name given twice, and any value that cannot be stored as text.
 */
export function readQuery(ctx: Context, allowed: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(ctx.query)) {
    if (!allowed.includes(name)) {
      throw validationError(allowed.length ? `unknown query parameter "${name}"; allowed: ${allowed.join(", ")}` : `unknown query parameter "${name}"`);
    }
    if (Array.isArray(value)) throw validationError(`query parameter "${name}" must be given once`);
    const problem = textProblem(value ?? "");
    if (problem) throw validationError(`query parameter "${name}" ${problem}`);
    out[name] = value ?? "";
  }
  return out;
}

/** Parses a whole-number query value within [min, max], or the default when absent. */
export function intParam(query: Record<string, string>, name: string, fallback: number, min: number, max: number): number {
  const text = query[name];
  if (text === undefined) return fallback;
  // Leading zeros are allowed; past 16 digits no value can be in range.
  if (!/^\d{1,16}$/.test(text.replace(/^0+(?=\d)/, "")) || Number(text) < min || Number(text) > max) {
    throw validationError(`${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(text);
}

/**
 * A list's `offset` query value: any whole number ≥ 0 (default 0) up to the
 * largest JSON can carry exactly, echoed as given in `pagination.offset`.
 */
export function offsetParam(query: Record<string, string>): number {
  return intParam(query, "offset", 0, 0, Number.MAX_SAFE_INTEGER);
}

/** The largest offset the services' list calls take (uint32); past it every list is empty anyway. */
const MAX_RPC_OFFSET = 4_294_967_295;

/** `offset` as a list call takes it: the same page, since no list holds 2³² rows. */
export function rpcOffset(offset: number): number {
  return Math.min(offset, MAX_RPC_OFFSET);
}

/** The page a list answers: `limit` items from `offset`. */
export interface ListPage {
  limit: number;
  offset: number;
}

/** The query parameters that page every list. */
export const PAGE_PARAMETERS = ["limit", "offset"] as const;

/**
 * A list's page from its query: `limit` 1 to 100 (default 20) and `offset` ≥ 0
 * (default 0), checked and worded alike on every list.
 */
export function listPage(query: Record<string, string>): ListPage {
  return { limit: intParam(query, "limit", 20, 1, 100), offset: offsetParam(query) };
}

/** The `pagination` member of a list's `{data, pagination}` answer. */
export function pagination(total: number | bigint, page: ListPage): { total: number; limit: number; offset: number } {
  return { total: Number(total), limit: page.limit, offset: page.offset };
}
