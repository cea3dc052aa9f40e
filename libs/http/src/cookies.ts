import { parseCookie, stringifySetCookie } from "cookie";

/** Values travel as they are: our tokens are cookie-safe text, never URL-encoded. */
const AS_IS = { decode: (value: string) => value, encode: (value: string) => value };

/**
 * The values of cookie `name` in a `Cookie` header, as sent, empty ones left
 * out. A browser may send one name twice (two paths or domains); the caller
 * decides what that means, so every value is returned — `cookie` keeps only a
 * name's first, hence each `;`-separated pair is parsed on its own.
 */
export function cookieValues(header: string, name: string): string[] {
  const values: string[] = [];
  if (!header.includes(name)) return values;
  for (const pair of header.split(";")) {
    const value = parseCookie(pair, AS_IS)[name];
    if (value) values.push(value);
  }
  return values;
}

/**
 * A `Set-Cookie` value for a host-only cookie: `Path=/`, no `Domain`, `Secure`
 * (what a `__Host-` name requires), `HttpOnly` and `SameSite=Lax`. `maxAgeS` 0
 * (with an empty value) removes the cookie; `expires`, when given, states the
 * same end for clients that ignore `Max-Age`.
 */
export function hostCookie(name: string, value: string, maxAgeS: number, expires?: Date): string {
  return stringifySetCookie(
    { name, value, path: "/", maxAge: Math.max(0, Math.floor(maxAgeS)), expires, secure: true, httpOnly: true, sameSite: "lax" },
    AS_IS,
  );
}
