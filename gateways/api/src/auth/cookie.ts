/**
 * The human session cookie. Its `__Host-` prefix makes browsers accept it only
 * with `Secure`, `Path=/` and no `Domain` (bound to this exact host); `HttpOnly`
 * keeps it from scripts and `SameSite=Lax` from cross-site subrequests. A
 * state-changing request authenticated by it also needs `X-CSRF-Token`.
 *
 * The cookie is `Secure`: browsers store it over HTTPS only (and on
 * `http://localhost`). In production the gateway sits behind TLS.
 */
export const SESSION_COOKIE = "__Host-payin_session";

export type SessionCookie = { kind: "absent" } | { kind: "present"; value: string } | { kind: "ambiguous" };

/**
 * The session cookie of a `Cookie` header. An empty value counts as absent (what
 * a cleared cookie may leave behind); the cookie given twice with values is ambiguous.
 */
export function readSessionCookie(header: string): SessionCookie {
  if (!header) return { kind: "absent" };
  const values: string[] = [];
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    let value = part.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (value) values.push(value);
  }
  if (values.length === 0) return { kind: "absent" };
  if (values.length > 1) return { kind: "ambiguous" };
  return { kind: "present", value: values[0]! };
}

/** `Set-Cookie` value carrying a session token until `absoluteExpiresAt`. */
export function sessionCookie(token: string, absoluteExpiresAt: Date, now = Date.now()): string {
  const maxAge = Math.max(0, Math.floor((absoluteExpiresAt.getTime() - now) / 1000));
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAge}; Expires=${absoluteExpiresAt.toUTCString()}; Secure; HttpOnly; SameSite=Lax`;
}

/** `Set-Cookie` value that removes the session cookie. */
export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure; HttpOnly; SameSite=Lax`;
}
