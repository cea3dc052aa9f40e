import { describe, expect, it } from "vitest";
import { duplicateKey } from "./duplicate-keys.js";

describe("duplicateKey", () => {
  it.each([
    ["an empty object", "{}"],
    ["an empty array", "[]"],
    ["distinct names", '{"asset":"usdt","amount":"10.5","jurisdiction":"DE"}'],
    ["a scalar", '"asset"'],
    ["a number", "12.5e3"],
    ["literals", '{"a":true,"b":false,"c":null}'],
    ["the same name in sibling objects", '{"a":{"x":1},"b":{"x":2}}'],
    ["the same name in an object and the one inside it", '{"x":{"x":{"x":1}}}'],
    ["the same name in each object of an array", '[{"x":1},{"x":2},{"x":3}]'],
    ["a value equal to a name", '{"asset":"asset","b":"asset"}'],
    ["values repeated in an array", '{"a":["x","x","x"]}'],
    ["names differing only in case", '{"Asset":1,"asset":2}'],
    ["a name and a value holding braces, quotes and commas", '{"a":"{\\"a\\":1,","b":"}]","c":"[{"}'],
    ["whitespace everywhere", ' { "a" : 1 ,\n\t"b" : [ 1 , { "a" : 2 } ] , "c" : { } } '],
    ["names made distinct by an escape", '{"a\\"b":1,"a\\\\b":2,"ab":3}'],
    ["a name ending in an escaped backslash", '{"a\\\\":1,"a":2}'],
  ])("finds none in %s", (_what, text) => {
    JSON.parse(text);
    expect(duplicateKey(text)).toBeNull();
  });

  it.each([
    ["the top level", '{"asset":"usdt","asset":"usdc"}', "asset"],
    ["a nested object", '{"a":{"b":1,"c":2,"b":3}}', "b"],
    ["an object in an array", '{"list":[{"x":1},{"y":1,"y":2}]}', "y"],
    ["an object in an array at the top", '[1,[{"k":1,"k":1}]]', "k"],
    ["an object after a closed nested one", '{"a":{"b":{}},"c":[],"a":1}', "a"],
    ["names spaced apart", '{ "a" : 1 ,\n "a" : 2 }', "a"],
    ["a \\u escape spelling the same name", '{"a\\u0062":1,"ab":2}', "ab"],
    ["two different escapes of one name", '{"\\u0061":1,"\\u0061":2}', "a"],
    ["\\/ and /", '{"a/b":1,"a\\/b":2}', "a/b"],
    ["an escaped quote in both", '{"say \\"hi\\"":1,"say \\"hi\\"":2}', 'say "hi"'],
    ["a name holding braces", '{"{}":1,"[]":2,"{}":3}', "{}"],
    ["the empty name", '{"":1,"":2}', ""],
    ["a name after a string value holding a brace", '{"a":"}","a":"{"}', "a"],
    ["a surrogate pair and its escape", '{"😀":1,"\\ud83d\\ude00":2}', "😀"],
    ["the __proto__ name", '{"__proto__":1,"__proto__":2}', "__proto__"],
    ["the first of several", '{"b":1,"a":1,"a":2,"b":2}', "a"],
  ])("finds the name given twice in %s", (_what, text, name) => {
    JSON.parse(text);
    expect(duplicateKey(text)).toBe(name);
  });

  it("follows nesting deeper than a recursive walk could", () => {
    const depth = 100_000;
    const deep = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    expect(duplicateKey(deep)).toBeNull();
    const twice = `${'{"a":'.repeat(depth)}{"b":1,"b":2}${"}".repeat(depth)}`;
    expect(duplicateKey(twice)).toBe("b");
  });

  it.each([
    ["an unterminated string", '{"a":1,"a'],
    ["a trailing backslash", '{"a\\'],
    ["stray closers", "}}]]"],
    ["a broken escape in a name", '{"\\u00":1}'],
  ])("ends on a text that is not JSON (%s)", (_what, text) => {
    expect(() => duplicateKey(text)).not.toThrow();
  });
});
