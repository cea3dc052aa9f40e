/**
 * Signing in to the merchant area: email and password, then the 6-digit code
 * (or a recovery code) when the person has MFA; choosing a merchant when the
 * person belongs to several; signing out. Sessions are identity's (transport
 * `cookie`); the sign-in forms carry a double-submit CSRF token, since there is
 * no session yet.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import { ApiError, strictRouter } from "@payin/http";
import { isEmailAddress } from "@payin/ids";
import type { identityV1 } from "@payin/proto";
import { Code, ConnectError, fromTimestamp, retryAfterOf } from "@payin/rpc";
import type { AppDeps } from "../../deps.js";
import { readForm, requireSameOrigin } from "../../http/form.js";
import {
  checkCsrf,
  cookie,
  cookieValue,
  CSRF_FIELD,
  currentSession,
  LOGIN_CSRF_COOKIE,
  MERCHANT_COOKIE,
  newLoginCsrfToken,
  SESSION_COOKIE,
} from "../../merchant-session.js";
import { merchantCookie, renderNotMember, renderPage, seeOther } from "./area.js";

export type SignInDeps = Pick<AppDeps, "identity" | "merchants" | "views" | "publicUrl" | "now" | "clientAddress" | "logger">;

/** The sign-in form's CSRF cookie outlives a slow sign-in (the MFA challenge itself lasts 5 minutes). */
const LOGIN_CSRF_MAX_AGE_S = 2 * 60 * 60;
const PASSWORD_MIN = 12;
const PASSWORD_MAX = 128;
const CHALLENGE_TOKEN_MAX = 512;
const CODE_MAX = 64;

const WRONG_PASSWORD = "The email address or password is not right. Check both and try again.";
const WRONG_CODE = "That code is not right, or it has already been used. Enter the current code from your authenticator app, or a recovery code.";

/** The sign-in form's CSRF token: the one in the cookie when it has one, else a new one (set now). */
function loginCsrfToken(ctx: Context): string {
  const token = cookieValue(ctx.get("cookie"), LOGIN_CSRF_COOKIE) ?? newLoginCsrfToken();
  ctx.append("Set-Cookie", cookie(LOGIN_CSRF_COOKIE, token, LOGIN_CSRF_MAX_AGE_S));
  return token;
}

/** A sign-in form from this site, whose CSRF field matches its cookie (403 otherwise). */
async function readLoginForm(deps: SignInDeps, ctx: Context): Promise<URLSearchParams> {
  requireSameOrigin(ctx, deps.publicUrl);
  const form = await readForm(ctx);
  checkCsrf(form.get(CSRF_FIELD), cookieValue(ctx.get("cookie"), LOGIN_CSRF_COOKIE) ?? "");
  return form;
}

function renderLogin(ctx: Context, deps: SignInDeps, context: { email?: string; error?: string; notice?: string }, status = 200): void {
  renderPage(ctx, deps, "merchant/login.njk", { csrfToken: loginCsrfToken(ctx), email: context.email ?? "", error: context.error ?? null, notice: context.notice ?? null }, status);
}

function renderMfa(ctx: Context, deps: SignInDeps, challengeToken: string, error: string | null, status = 200): void {
  renderPage(ctx, deps, "merchant/mfa.njk", { csrfToken: loginCsrfToken(ctx), challengeToken, error }, status);
}

/** Identity's throttling, as the page's 429 with Retry-After. */
function throttled(error: ConnectError): ApiError {
  const retryAfterS = retryAfterOf(error) ?? 1;
  // The error page adds how long to wait, from Retry-After.
  return new ApiError("RATE_LIMITED", "Too many sign-in attempts for now. Nothing was checked.", { "retry-after": String(retryAfterS) });
}

/** Whether identity refused the attempt itself (wrong password or code, spent or expired challenge, a value it will not take). */
function refused(error: unknown): error is ConnectError {
  return error instanceof ConnectError && (error.code === Code.Unauthenticated || error.code === Code.InvalidArgument);
}

function isThrottled(error: unknown): error is ConnectError {
  return error instanceof ConnectError && error.code === Code.ResourceExhausted;
}

/** Ends a session, ignoring one identity no longer knows. */
async function endSession(deps: SignInDeps, sessionToken: string): Promise<void> {
  try {
    await deps.identity.logout({ caller: { sessionToken } });
  } catch (error) {
    if (error instanceof ConnectError && error.code === Code.Unauthenticated) return;
    deps.logger.warn({ err: error }, "could not end a merchant-area session");
  }
}

/** Set-Cookie values that remove the area's cookies. */
function clearedCookies(): string[] {
  return [cookie(SESSION_COOKIE, "", 0), cookie(MERCHANT_COOKIE, "", 0)];
}

/**
 * A new session from identity: kept only for a person who belongs to a
 * merchant (and, when privileged, completed MFA); then the cookie, and on to
 * the choice of merchant or the dashboard. A session the browser held before
 * ends, so signing in anew never leaves the old one alive.
 */
async function finishSignIn(deps: SignInDeps, ctx: Context, authenticated: identityV1.Authenticated | undefined): Promise<void> {
  const session = authenticated?.session;
  const sessionToken = authenticated?.sessionToken;
  if (!session || !sessionToken || !session.identity) throw new Error("identity answered a sign-in without its session");
  const { principal } = await deps.identity.authenticate({ token: sessionToken });
  const { memberships } = await deps.merchants.listMemberships({ identityUuid: session.identity.uuid });
  const mfaMissing = !principal || (principal.privileged && !principal.mfaSatisfied);
  if (memberships.length === 0 || mfaMissing) {
    await endSession(deps, sessionToken);
    ctx.append("Set-Cookie", cookie(LOGIN_CSRF_COOKIE, "", 0));
    if (memberships.length === 0) return renderNotMember(ctx, deps, null);
    return renderPage(ctx, deps, "merchant/mfa-needed.njk", {}, 403);
  }
  const previous = cookieValue(ctx.get("cookie"), SESSION_COOKIE);
  if (previous && previous !== sessionToken) await endSession(deps, previous);
  const absoluteExpiresAt = fromTimestamp(session.absoluteExpiresAt);
  const maxAgeS = absoluteExpiresAt ? (absoluteExpiresAt.getTime() - deps.now().getTime()) / 1000 : 0;
  ctx.append("Set-Cookie", cookie(SESSION_COOKIE, sessionToken, maxAgeS));
  ctx.append("Set-Cookie", cookie(MERCHANT_COOKIE, "", 0));
  ctx.append("Set-Cookie", cookie(LOGIN_CSRF_COOKIE, "", 0));
  seeOther(ctx, memberships.length > 1 ? "/merchant/choose" : "/merchant");
}

/** /merchant/login, /merchant/login/mfa, /merchant/logout, /merchant/choose. */
export function signInRoutes(deps: SignInDeps): Router {
  const router = strictRouter();
  const clientIp = (ctx: Context) => deps.clientAddress(ctx.req);

  router.get("/merchant/login", async (ctx) => {
    const session = await currentSession(deps, ctx);
    if (session && session.merchantUuids.length > 0) return seeOther(ctx, "/merchant");
    renderLogin(ctx, deps, { notice: ctx.query.signed_out === "1" ? "You have signed out." : undefined });
  });

  router.post("/merchant/login", async (ctx) => {
    const form = await readLoginForm(deps, ctx);
    const email = (form.get("email") ?? "").trim();
    const password = form.get("password") ?? "";
    if (!email || !password) return renderLogin(ctx, deps, { email, error: "Enter your email address and your password." }, 400);
    // A password outside the contract's length, or an address that is none, cannot sign anyone in.
    if (!isEmailAddress(email) || password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
      return renderLogin(ctx, deps, { email, error: WRONG_PASSWORD }, 401);
    }
    let answer: identityV1.LoginResponse;
    try {
      answer = await deps.identity.login({ email, password, transport: "cookie", clientIp: clientIp(ctx) });
    } catch (error) {
      if (isThrottled(error)) throw throttled(error);
      if (refused(error)) return renderLogin(ctx, deps, { email, error: WRONG_PASSWORD }, 401);
      throw error;
    }
    if (answer.result.case === "mfaChallengeToken") return renderMfa(ctx, deps, answer.result.value, null);
    await finishSignIn(deps, ctx, answer.result.value);
  });

  router.post("/merchant/login/mfa", async (ctx) => {
    const form = await readLoginForm(deps, ctx);
    const challengeToken = form.get("mfa_challenge_token") ?? "";
    const code = (form.get("code") ?? "").replace(/\s+/g, "");
    if (!challengeToken || challengeToken.length > CHALLENGE_TOKEN_MAX) {
      return renderLogin(ctx, deps, { error: "This sign-in has expired. Please sign in again." }, 401);
    }
    if (!code) return renderMfa(ctx, deps, challengeToken, "Enter the 6-digit code from your authenticator app, or a recovery code.", 400);
    if (code.length > CODE_MAX) return renderMfa(ctx, deps, challengeToken, WRONG_CODE, 401);
    let answer: identityV1.CompleteMfaResponse;
    try {
      answer = await deps.identity.completeMfa({ mfaChallengeToken: challengeToken, code, clientIp: clientIp(ctx) });
    } catch (error) {
      if (isThrottled(error)) throw throttled(error);
      if (refused(error)) return renderMfa(ctx, deps, challengeToken, WRONG_CODE, 401);
      throw error;
    }
    await finishSignIn(deps, ctx, answer.authenticated);
  });

  // Ends the session. Without one there is nothing to end: the cookies are cleared all the same.
  router.post("/merchant/logout", async (ctx) => {
    requireSameOrigin(ctx, deps.publicUrl);
    const form = await readForm(ctx);
    const session = await currentSession(deps, ctx);
    if (session) {
      checkCsrf(form.get(CSRF_FIELD), session.csrfToken);
      await endSession(deps, session.sessionToken);
    }
    for (const value of clearedCookies()) ctx.append("Set-Cookie", value);
    seeOther(ctx, session ? "/merchant/login?signed_out=1" : "/merchant/login");
  });

  router.get("/merchant/choose", async (ctx) => {
    const session = await currentSession(deps, ctx);
    if (!session) return seeOther(ctx, "/merchant/login");
    if (session.merchantUuids.length === 0) return renderNotMember(ctx, deps, session.csrfToken);
    // The merchant acted for is preselected; else the first.
    const selected = session.merchantUuid ?? session.merchantUuids[0];
    const merchants = await Promise.all(
      session.merchantUuids.map(async (uuid) => {
        const { merchant } = await deps.merchants.getMerchant({ uuid });
        return { uuid, displayName: merchant?.displayName ?? uuid, checked: uuid === selected };
      }),
    );
    renderPage(ctx, deps, "merchant/choose.njk", { csrfToken: session.csrfToken, merchants, error: null });
  });

  router.post("/merchant/choose", async (ctx) => {
    requireSameOrigin(ctx, deps.publicUrl);
    const form = await readForm(ctx);
    const session = await currentSession(deps, ctx);
    if (!session) return seeOther(ctx, "/merchant/login");
    checkCsrf(form.get(CSRF_FIELD), session.csrfToken);
    if (session.merchantUuids.length === 0) return renderNotMember(ctx, deps, session.csrfToken);
    const chosen = (form.get("merchant_uuid") ?? "").toLowerCase();
    if (!session.merchantUuids.includes(chosen)) {
      throw new ApiError("FORBIDDEN", "Your account is not a member of that merchant. Go back and choose one of yours.");
    }
    const { session: identitySession } = await deps.identity.getSession({ caller: { sessionToken: session.sessionToken } });
    ctx.append("Set-Cookie", merchantCookie(chosen, fromTimestamp(identitySession?.absoluteExpiresAt), deps.now()));
    seeOther(ctx, "/merchant");
  });

  return router;
}
