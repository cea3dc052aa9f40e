import type Router from "@koa/router";
import type { identityV1 } from "@payin/proto";
import { Code, ConnectError, fromTimestamp, isoFromTimestamp } from "@payin/rpc";
import type { Context } from "koa";
import type { AppDeps } from "../deps.js";
import { bearerTokenOf, MACHINE_TOKEN_PREFIX, requireMfaIfPrivileged, requireRecentMfa, unambiguousCredentials, type Credentials } from "../auth/authenticator.js";
import { clearedSessionCookie, readSessionCookie, sessionCookie } from "../auth/cookie.js";
import {
  ApiError,
  clientAddressOf,
  emailField,
  enumField,
  listPage,
  lowerCaseUuidParams,
  onlyFields,
  PAGE_PARAMETERS,
  pagination,
  readJsonObject,
  readQuery,
  requiredString,
  strictRouter,
} from "@payin/http";
import { identityView } from "@payin/operations";
import { change } from "../operations.js";

/**
 * password and new_password have 12 to 128 characters (docs/api.md, "Limits").
 * The OpenAPI document gives these limits from here.
 */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;
export const TRANSPORTS = ["cookie", "bearer"] as const;
/** Upper bounds for opaque inputs (tokens are 43 characters, codes 6 or 11). */
export const CHALLENGE_TOKEN_MAX = 512;
export const CODE_MAX = 64;

/**
 * The session representation: exactly the contract's fields (docs/api.md, "Other
 * resources"). The session's uuid, transport and creation time are in GET /auth/sessions.
 */
function sessionView(s: identityV1.Session) {
  return {
    identity: identityView(s.identity),
    roles: [...(s.identity?.roles ?? [])],
    expires_at: isoFromTimestamp(s.expiresAt),
    absolute_expires_at: isoFromTimestamp(s.absoluteExpiresAt),
    mfa_satisfied: s.mfaSatisfied,
    primary_authenticated_at: isoFromTimestamp(s.primaryAuthenticatedAt),
    csrf_token: s.csrfToken,
  };
}

/** One of the caller's sessions in GET /auth/sessions: never a token or CSRF token. */
function sessionListItem(s: identityV1.Session, currentUuid: string) {
  return {
    session_uuid: s.sessionUuid,
    expires_at: isoFromTimestamp(s.expiresAt),
    absolute_expires_at: isoFromTimestamp(s.absoluteExpiresAt),
    mfa_satisfied: s.mfaSatisfied,
    primary_authenticated_at: isoFromTimestamp(s.primaryAuthenticatedAt),
    created_at: isoFromTimestamp(s.createdAt),
    current: s.sessionUuid === currentUuid,
    transport: s.transport,
  };
}

/**
 * Answers a new session: the authenticated response (docs/api.md, "Other resources"),
 * and for the cookie transport also the `__Host-payin_session` cookie.
 *
 * `token` is in the body for both transports, as the contract lists it among the
 * authenticated response's fields; a cookie session's token is accepted only as
 * the cookie (see Authenticator), so a browser client can ignore it.
 */
function answerAuthenticated(ctx: Context, authenticated: identityV1.Authenticated | undefined): void {
  const session = authenticated?.session;
  if (!session || !authenticated.sessionToken) throw new Error("identity answered without a session");
  const transport = session.transport === "cookie" ? "cookie" : "bearer";
  if (transport === "cookie") {
    ctx.append("Set-Cookie", sessionCookie(authenticated.sessionToken, fromTimestamp(session.absoluteExpiresAt) ?? new Date()));
  }
  ctx.status = 200;
  ctx.body = {
    status: "authenticated",
    identity: identityView(session.identity),
    roles: [...(session.identity?.roles ?? [])],
    transport,
    csrf_token: session.csrfToken,
    token: authenticated.sessionToken,
    token_type: "Bearer",
  };
}


/**
 * The session token a sign-in request presents: the session cookie or a bearer
 * token (never both: unambiguousCredentials refused that), never a machine
 * token. Nothing else here refuses the sign-in: a malformed or unknown token is
 * simply not ended.
 */
function presentedSessionTokens(credentials: Credentials): string[] {
  const tokens: string[] = [];
  if (credentials.cookie.kind === "present") tokens.push(credentials.cookie.value);
  const bearer = bearerTokenOf(credentials.authorization);
  if (bearer !== null) tokens.push(bearer);
  return tokens.filter((token) => !token.startsWith(MACHINE_TOKEN_PREFIX));
}

/**
 * Ends the sessions a sign-in presented, once the new sign-in was accepted, so
 * that signing in anew (as the same person or another) never leaves the old
 * session alive behind the new one. Best effort: a token identity refuses (ended,
 * expired, never a session) is ignored, and a failure leaves the sign-in's answer as it is.
 */
async function endPresentedSessions(deps: Pick<AppDeps, "identity" | "logger">, tokens: readonly string[]): Promise<void> {
  for (const sessionToken of tokens) {
    try {
      await deps.identity.logout({ caller: { sessionToken } });
    } catch (error) {
      if (error instanceof ConnectError && error.code === Code.Unauthenticated) continue;
      deps.logger.warn({ err: error }, "could not end the session presented at sign-in");
    }
  }
}

/** /api/v1/auth/*: sign-in, MFA, sessions, password, TOTP enrolment (docs/platform-api.md). */
export function authRoutes(deps: Pick<AppDeps, "logger" | "auth" | "identity" | "merchants" | "clientAddress">): Router {
  const router = strictRouter({ prefix: "/api/v1/auth" });
  lowerCaseUuidParams(router, ["uuid"]);
  const { identity, auth } = deps;
  // The client address used for sign-in throttling (and for the re-checks of the
  // current password): the TCP peer, or behind a configured trusted proxy what it
  // forwarded (TRUSTED_PROXIES). Koa itself runs with proxy: false, so no other
  // header ever picks a throttling bucket.
  const addressOf = deps.clientAddress ?? clientAddressOf([]);
  const clientIp = (ctx: Context) => addressOf(ctx.req);

  // Sign in. Answers an authenticated session, or `mfa_required` with a challenge
  // token and neither a cookie nor a session token. A session the request
  // presents ends once the password is accepted (either answer); a refused
  // sign-in leaves it alone.
  router.post("/login", async (ctx) => {
    readQuery(ctx, []);
    const presented = unambiguousCredentials(ctx);
    const body = await readJsonObject(ctx);
    onlyFields(body, ["email", "password", "transport"]);
    const email = emailField(body, "email");
    const password = requiredString(body, "password", { min: PASSWORD_MIN, max: PASSWORD_MAX });
    const transport = enumField(body, "transport", TRANSPORTS);
    const res = await identity.login({ email, password, transport, clientIp: clientIp(ctx) });
    await endPresentedSessions(deps, presentedSessionTokens(presented));
    if (res.result.case === "mfaChallengeToken") {
      ctx.status = 200;
      ctx.body = { status: "mfa_required", mfa_challenge_token: res.result.value };
      return;
    }
    answerAuthenticated(ctx, res.result.value);
  });

  // Completes an MFA challenge with a TOTP or recovery code; the session gets the
  // transport chosen at login. A session the request presents ends, as at login.
  router.post("/mfa", async (ctx) => {
    readQuery(ctx, []);
    const presented = unambiguousCredentials(ctx);
    const body = await readJsonObject(ctx);
    onlyFields(body, ["mfa_challenge_token", "code"]);
    const mfaChallengeToken = requiredString(body, "mfa_challenge_token", { min: 1, max: CHALLENGE_TOKEN_MAX });
    const code = requiredString(body, "code", { min: 1, max: CODE_MAX });
    const res = await identity.completeMfa({ mfaChallengeToken, code, clientIp: clientIp(ctx) });
    await endPresentedSessions(deps, presentedSessionTokens(presented));
    answerAuthenticated(ctx, res.authenticated);
  });

  router.get("/session", async (ctx) => {
    readQuery(ctx, []);
    const principal = await auth.authenticateHuman(ctx);
    const res = await identity.getSession({ caller: { sessionToken: principal.sessionToken } });
    ctx.body = sessionView(res.session!);
  });

  // Ends the session and clears the cookie; also clears a cookie that no longer
  // works (401). A refused logout (400 both transports, 403 CSRF) changes nothing,
  // the cookie included. With the cookie, `Clear-Site-Data: "cookies"` also has
  // the browser drop the site's other cookies (all of its registrable domain).
  router.post("/logout", async (ctx) => {
    readQuery(ctx, []);
    const clearCookie = () => {
      if (readSessionCookie(ctx.get("cookie")).kind === "absent") return;
      ctx.append("Set-Cookie", clearedSessionCookie());
      ctx.set("Clear-Site-Data", '"cookies"');
    };
    try {
      const principal = await auth.authenticateHuman(ctx);
      const target = { type: "session", uuid: principal.sessionUuid };
      await change(deps, ctx, principal, { action: "session.logout", target, successRecordedBy: "identity" }, async () => {
        await identity.logout({ caller: { sessionToken: principal.sessionToken } });
      });
    } catch (error) {
      // The session no longer works (also when it ended between the two calls).
      if ((error instanceof ApiError && error.status === 401) || (error instanceof ConnectError && error.code === Code.Unauthenticated)) clearCookie();
      throw error;
    }
    clearCookie();
    ctx.status = 204;
  });

  // Changes the password; the identity's other sessions are revoked at once.
  // A privileged identity without MFA may only read its session, log out and
  // enrol TOTP here: its password alone must not entrench it (403 MFA_REQUIRED).
  // For a privileged identity a password change is a change of trust: it needs
  // MFA within the last 15 minutes (403 MFA_RECENT_REQUIRED when longer ago).
  router.post("/password", async (ctx) => {
    readQuery(ctx, []);
    const principal = await auth.authenticateHuman(ctx);
    if (principal.privileged) requireRecentMfa(principal);
    const body = await readJsonObject(ctx);
    onlyFields(body, ["current_password", "new_password"]);
    // Any string: the contract bounds only new passwords, and one that cannot match is simply wrong (401).
    const currentPassword = requiredString(body, "current_password");
    const newPassword = requiredString(body, "new_password", { min: PASSWORD_MIN, max: PASSWORD_MAX });
    const target = { type: "identity", uuid: principal.identityUuid };
    await change(deps, ctx, principal, { action: "identity.password.change", target, successRecordedBy: "identity" }, async () => {
      await identity.changePassword({ caller: { sessionToken: principal.sessionToken }, currentPassword, newPassword, clientIp: clientIp(ctx) });
    });
    ctx.status = 204;
  });

  // Paged here: identity answers a person's live sessions at once (they end
  // within 12 hours, so there are never many).
  router.get("/sessions", async (ctx) => {
    const page = listPage(readQuery(ctx, PAGE_PARAMETERS));
    const principal = await auth.authenticateHuman(ctx);
    requireMfaIfPrivileged(principal);
    const res = await identity.listSessions({ caller: { sessionToken: principal.sessionToken } });
    const items = res.sessions.slice(page.offset, page.offset + page.limit);
    ctx.body = { data: items.map((s) => sessionListItem(s, principal.sessionUuid)), pagination: pagination(res.sessions.length, page) };
  });

  // Revokes one of the caller's own sessions; another's (or an unknown one) is 404.
  router.delete("/sessions/:uuid", async (ctx) => {
    readQuery(ctx, []);
    const principal = await auth.authenticateHuman(ctx);
    requireMfaIfPrivileged(principal);
    const target = { type: "session", uuid: ctx.params.uuid };
    await change(deps, ctx, principal, { action: "session.revoke", target, successRecordedBy: "identity" }, async () => {
      await identity.revokeSession({ caller: { sessionToken: principal.sessionToken }, sessionUuid: ctx.params.uuid! });
    });
    if (ctx.params.uuid === principal.sessionUuid && principal.transport === "cookie") ctx.append("Set-Cookie", clearedSessionCookie());
    ctx.status = 204;
  });

  // Starts TOTP enrolment after checking the current password (401 when wrong):
  // the otpauth:// URI (with the secret) is shown once.
  router.post("/mfa/totp", async (ctx) => {
    readQuery(ctx, []);
    const principal = await auth.authenticateHuman(ctx);
    const body = await readJsonObject(ctx);
    onlyFields(body, ["current_password"]);
    // Any string, as for a password change: one that cannot match is simply wrong (401).
    const currentPassword = requiredString(body, "current_password");
    let otpauthUri = "";
    const target = { type: "identity", uuid: principal.identityUuid };
    await change(deps, ctx, principal, { action: "identity.totp.start", target, successRecordedBy: "identity" }, async () => {
      otpauthUri = (await identity.enrollTotp({ caller: { sessionToken: principal.sessionToken }, currentPassword, clientIp: clientIp(ctx) })).otpauthUri;
    });
    ctx.body = { otpauth_uri: otpauthUri };
  });

  // Confirms enrolment with a first code: ten recovery codes, shown once. Every
  // other session of the identity ends; this one is not upgraded (MFA counts
  // from the next sign-in).
  router.post("/mfa/totp/confirm", async (ctx) => {
    readQuery(ctx, []);
    const principal = await auth.authenticateHuman(ctx);
    const body = await readJsonObject(ctx);
    onlyFields(body, ["code"]);
    const code = requiredString(body, "code", { min: 1, max: CODE_MAX });
    let recoveryCodes: string[] = [];
    const target = { type: "identity", uuid: principal.identityUuid };
    await change(deps, ctx, principal, { action: "identity.totp.confirm", target, successRecordedBy: "identity" }, async () => {
      recoveryCodes = [...(await identity.confirmTotp({ caller: { sessionToken: principal.sessionToken }, code })).recoveryCodes];
    });
    ctx.body = { recovery_codes: recoveryCodes };
  });

  return router;
}
