import { cookieValues, hostCookie } from "@payin/http";

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
 * The session cookie of a `Cookie` header, surrounding double quotes dropped. An
 * empty value counts as absent (what a cleared cookie may leave behind); the
 * cookie given twice with values is ambiguous.
 */
export function readSessionCookie(header: string): SessionCookie {
  if (!header) return { kind: "absent" };
  const values = cookieValues(header, SESSION_COOKIE)
    .map((value) => (value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value))
    .filter((value) => value !== "");
  if (values.length === 0) return { kind: "absent" };
  if (values.length > 1) return { kind: "ambiguous" };
  return { kind: "present", value: values[0]! };
}

/** `Set-Cookie` value carrying a session token until `absoluteExpiresAt`. */
export function sessionCookie(token: string, absoluteExpiresAt: Date, now = Date.now()): string {
  return hostCookie(SESSION_COOKIE, token, (absoluteExpiresAt.getTime() - now) / 1000, absoluteExpiresAt);
}

/** `Set-Cookie` value that removes the session cookie. */
export function clearedSessionCookie(): string {
  return hostCookie(SESSION_COOKIE, "", 0, new Date(0));
}
