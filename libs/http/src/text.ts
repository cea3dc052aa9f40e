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

/** The longest Idempotency-Key, in characters (the contract's limit; payins keeps the key in a varchar(64)). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 64;

/**
 * The longest `reference` of a pay-in intent or a checkout, in characters: payins
 * refuses a longer one, the checkout's form says so first, and the OpenAPI
 * document gives it as the field's maxLength.
 */
export const MAX_REFERENCE_LENGTH = 255;

/**
 * Why an Idempotency-Key cannot be used, or null: the one rule, which payins
 * decides a create by and the API gateway checks the header by before it reads
 * the body. `missing`: empty; `too_long`: over MAX_IDEMPOTENCY_KEY_LENGTH
 * characters; `unstorable`: U+0000, which PostgreSQL text cannot hold.
 */
export function idempotencyKeyProblem(key: string): "missing" | "too_long" | "unstorable" | null {
  if (key === "") return "missing";
  if (charLength(key) > MAX_IDEMPOTENCY_KEY_LENGTH) return "too_long";
  if (key.includes("\u0000")) return "unstorable";
  return null;
}

/**
 * The bidirectional embedding, override and isolate controls (U+202A–U+202E,
 * U+2066–U+2069). In a name shown to people they reorder what follows, so a
 * name can read as another one ("Trojan Source", CVE-2021-42574).
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;

/**
 * The zero-width characters (U+200B–U+200F, U+2060, U+FEFF): invisible, they make
 * two texts that read the same differ, or hide what a text holds; U+200E/U+200F
 * also reorder it.
 */
const ZERO_WIDTH = /[\u200B-\u200F\u2060\uFEFF]/;

/**
 * The one rule of text that a payer or a merchant's member reads (merchant and
 * provider names, a checkout's description and reference), or null: no
 * bidirectional control character and no zero-width character.
 */
export function displayTextProblem(value: string): string | null {
  if (BIDI_CONTROLS.test(value)) return "must not contain bidirectional control characters (U+202A to U+202E, U+2066 to U+2069)";
  if (ZERO_WIDTH.test(value)) return "must not contain zero-width characters (U+200B to U+200F, U+2060, U+FEFF)";
  return null;
}
