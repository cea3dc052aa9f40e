/**
 * Finds a name given twice in one object of a JSON text. JSON.parse keeps the
 * last of them silently (`{"asset":"usdt","asset":"usdc"}` reads as usdc), and
 * a reviver sees only what survived, so the check reads the text itself.
 *
 * Pure: no Koa, no transport.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/**
 * The first name that occurs twice in one object of `text`, decoded (so
 * `"a\u0062"` and `"ab"` are the same name), or null when every object's names
 * are distinct. Meant for a text JSON.parse accepted; for any other text it
 * still ends, and its answer means nothing.
 *
 * One pass without recursion (JSON.parse takes nesting deeper than a recursive
 * walk could follow): a stack holds the names seen so far in each open object,
 * and a null for each open array.
 */
export function duplicateKey(text: string): string | null {
  const open: (Set<string> | null)[] = [];
  // The next string is a name: right after `{`, or after a `,` inside an object.
  let nameNext = false;
  const end = text.length;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = i + 1;
      let escaped = false;
      while (j < end) {
        const d = text.charCodeAt(j);
        if (d === QUOTE) break;
        if (d === BACKSLASH) {
          escaped = true;
          j += 2;
        } else {
          j++;
        }
      }
      const names = open.at(-1);
      if (nameNext && names) {
        const raw = text.slice(i, j + 1);
        const name = escaped ? decodeString(raw) : raw.slice(1, -1);
        if (name === null) return null;
        if (names.has(name)) return name;
        names.add(name);
      }
      nameNext = false;
      i = j;
    } else if (c === OPEN_OBJECT) {
      open.push(new Set());
      nameNext = true;
    } else if (c === OPEN_ARRAY) {
      open.push(null);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      // In JSON no string follows a closer before a comma sets nameNext again.
      open.pop();
    } else if (c === COMMA) {
      nameNext = open.at(-1) instanceof Set;
    }
  }
  return null;
}

/** A quoted JSON string with escapes, decoded; null when it is not one (the text was not JSON). */
function decodeString(quoted: string): string | null {
  try {
    const value: unknown = JSON.parse(quoted);
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}
