/**
 * The merchant area's sign-in: identity's sessions (transport `cookie`) carried
 * in the checkout's own cookie, the merchant a person chose, and the CSRF token
 * every form carries. The gateway keeps nothing: each request asks identity
 * about the session and merchants about the memberships (so a removed
 * membership or a changed role applies to the person's next request).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "koa";
import { ApiError, cookieValues, hostCookie } from "@payin/http";
import { permissionsForMerchant, type Permission } from "@payin/permissions";
import { identityV1 } from "@payin/proto";
import { Code, ConnectError, reasonOf } from "@payin/rpc";
import type { AppDeps } from "./deps.js";

/** The merchant area's session cookie (Secure, HttpOnly, SameSite=Lax, Path=/; bound to this host by `__Host-`). */
export const SESSION_COOKIE = "__Host-payin_checkout";
/** The merchant a person acts for, when it belongs to several: only a choice, checked against the memberships on every request. */
export const MERCHANT_COOKIE = "__Host-payin_checkout_merchant";
/** The sign-in form's CSRF token before there is a session (double submit: cookie and form field). */
export const LOGIN_CSRF_COOKIE = "__Host-payin_checkout_login";
/** The form field every merchant form carries its CSRF token in. */
export const CSRF_FIELD = "csrf_token";

const TOKEN_TEXT = /^[\x21-\x7e]{1,512}$/;

/** The value of cookie `name` in a `Cookie` header; undefined when absent, empty or given twice. */
export function cookieValue(header: string, name: string): string | undefined {
  const values = cookieValues(header, name);
  return values.length === 1 && TOKEN_TEXT.test(values[0]!) ? values[0] : undefined;
}

/** A `Set-Cookie` value for one of the area's cookies; `maxAgeS` 0 removes it. */
export function cookie(name: string, value: string, maxAgeS: number): string {
  return hostCookie(name, value, maxAgeS);
}

/** A signed-in merchant person, as a request of the merchant area sees them. */
export interface MerchantSession {
  identityUuid: string;
  sessionToken: string;
  csrfToken: string;
  /**
   * Identity's signed word on who the person is (Principal.actor_assertion,
   * fresh with each request): passed with a change to a service that stamps
   * who acted from it (notifications' webhook endpoints).
   */
  actorAssertion: string;
  /**
   * What the person may do for the merchant they act for: @payin/permissions'
   * permissionsForMerchant of their membership there (its role, else their own
   * roles' merchant permissions); no merchant permission while a choice is needed.
   */
  permissions: ReadonlySet<Permission>;
  /** Merchants the person belongs to. */
  merchantUuids: readonly string[];
  /** The merchant the person acts for: their only one, or the one chosen; null while a choice is needed. */
  merchantUuid: string | null;
}

/**
 * The request's merchant-area session, or null when it has none that works
 * (no cookie, ended, expired, or a session of the other transport). A
 * privileged identity whose session did not complete MFA has none either.
 */
export async function currentSession(deps: Pick<AppDeps, "identity" | "merchants">, ctx: Context): Promise<MerchantSession | null> {
  const sessionToken = cookieValue(ctx.get("cookie"), SESSION_COOKIE);
  if (!sessionToken) return null;
  let principal: identityV1.Principal | undefined;
  try {
    principal = (await deps.identity.authenticate({ token: sessionToken })).principal;
  } catch (error) {
    if (error instanceof ConnectError && error.code === Code.Unauthenticated && reasonOf(error)) return null;
    throw error;
  }
  if (!principal || principal.kind !== identityV1.PrincipalKind.HUMAN || principal.transport !== "cookie" || !principal.identityUuid) return null;
  // Identity decides who is privileged (an administrative permission): such a person acts only after MFA.
  if (principal.privileged && !principal.mfaSatisfied) return null;
  const { memberships } = await deps.merchants.listMemberships({ identityUuid: principal.identityUuid });
  const merchantUuids = memberships.map((m) => m.merchantUuid);
  const chosen = cookieValue(ctx.get("cookie"), MERCHANT_COOKIE);
  const merchantUuid = merchantUuids.length === 1 ? merchantUuids[0]! : chosen && merchantUuids.includes(chosen) ? chosen : null;
  const membership = memberships.find((m) => m.merchantUuid === merchantUuid) ?? null;
  return {
    identityUuid: principal.identityUuid,
    sessionToken,
    csrfToken: principal.csrfToken,
    actorAssertion: principal.actorAssertion,
    permissions: permissionsForMerchant(principal.permissions, membership),
    merchantUuids,
    merchantUuid,
  };
}

/** 403 unless `sent` is the session's CSRF token (compared in constant time). */
export function checkCsrf(sent: string | null, expected: string): void {
  const digest = (text: string) => createHash("sha256").update(text).digest();
  if (!sent || !expected || !timingSafeEqual(digest(sent), digest(expected))) {
    throw new ApiError("CSRF_TOKEN_INVALID", "This form has expired or did not come from this page. Go back, reload the page and try again.");
  }
}

/** A fresh CSRF token for the sign-in form. */
export function newLoginCsrfToken(): string {
  return randomBytes(32).toString("base64url");
}
