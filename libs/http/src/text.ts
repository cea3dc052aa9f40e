/**
 * Text rules shared by the gateways and the services. Pure: no Koa, no
 * transport; services import it as `@payin/http/text`.
 */

/** Length in Unicode code points: the "characters" of the contract's limits (docs/api.md), as a client counts them. */
export function charLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What makes `value` unfit to be stored as text, or null: PostgreSQL text cannot
 * hold U+0000, and a lone surrogate (JSON's "\ud800") is no character at all —
 * encoded, it would silently become U+FFFD.
 */
export function textProblem(value: string): string | null {
  if (value.includes("\u0000")) return "must not contain the character U+0000";
  if (LONE_SURROGATE.test(value)) return "must be valid Unicode (it holds a lone surrogate)";
  return null;
}
