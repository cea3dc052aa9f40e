import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { callerSession, callerSessionAfterMfa, requireRecentMfa } from "./caller.js";
import { recordChange } from "./audit-outbox.js";
import { checkClientIp } from "./login.js";
import { checkNewPassword, hashPassword, verifyPassword } from "./password.js";
import { IdentityReason } from "./reasons.js";
import type { ReauthPurpose } from "./security-events.js";
import { humanPrincipal, isSessionLive, SESSION_IDLE_MS, sessionView, type SessionView } from "./session.js";
import type { Identity, IdentityDeps } from "./stores.js";
import { countedClientIp, throttledAttempt } from "./throttle.js";

/** The caller's session (its idle expiry touched). A challenge token is refused. */
export async function getSession(deps: IdentityDeps, input: { sessionToken: string }): Promise<SessionView> {
  const { session, identity } = await callerSession(deps, input.sessionToken, deps.clock());
  return sessionView(session, identity);
}

/** Ends the caller's session. */
export async function logout(deps: IdentityDeps, input: { sessionToken: string }): Promise<void> {
  const now = deps.clock();
  const { session } = await callerSession(deps, input.sessionToken, now);
  await deps.stores.transaction(async (tx) => {
    await tx.sessions.revoke(session.sessionUuid, now);
    await recordChange(tx, deps, session, { action: "session.logout", targetType: "session", targetUuid: session.sessionUuid }, now);
  });
}

/** The caller's live sessions, newest first; only the caller's own carries its CSRF token. */
export async function listSessions(deps: IdentityDeps, input: { sessionToken: string }): Promise<SessionView[]> {
  const now = deps.clock();
  const { session: own, identity } = await callerSessionAfterMfa(deps, input.sessionToken, now);
  const sessions = await deps.stores.sessions.listLive(identity.identityUuid, now, new Date(now.getTime() - SESSION_IDLE_MS));
  return sessions.map((s) => sessionView(s, identity, s.sessionUuid === own.sessionUuid));
}

/**
 * Revokes one of the caller's live sessions (the current one included). Another
 * identity's session, an unknown one, or one already ended is SESSION_NOT_FOUND.
 */
export async function revokeSession(deps: IdentityDeps, input: { sessionToken: string; sessionUuid: string }): Promise<void> {
  const now = deps.clock();
  const { identity } = await callerSessionAfterMfa(deps, input.sessionToken, now);
  const notFound = () => new DomainError(IdentityReason.SessionNotFound, "session not found");
  if (!isUuid(input.sessionUuid)) throw notFound();
  const target = await deps.stores.sessions.findByUuid(input.sessionUuid);
  if (!target || target.identityUuid !== identity.identityUuid || !isSessionLive(target, now)) throw notFound();
  await deps.stores.transaction(async (tx) => {
    if (!(await tx.sessions.revoke(target.sessionUuid, now))) throw notFound();
    await recordChange(tx, deps, identity, { action: "session.revoke", targetType: "session", targetUuid: target.sessionUuid }, now);
  });
}

/**
 * Checks a signed-in person's password again before a sensitive change of their
 * own (`purpose`): a wrong one is AUTH_INVALID_CREDENTIALS and counts as a
 * failed attempt for the email and the client IP the gateway saw (so the check
 * cannot be used to guess it), and is throttled as sign-in is (RATE_LIMITED).
 * Failures and throttling are security events. An empty client IP (unknown)
 * counts toward the email only.
 */
export async function verifyCurrentPassword(
  deps: IdentityDeps,
  identity: Identity,
  input: { password: string; clientIp: string; purpose: ReauthPurpose },
  now: Date,
): Promise<void> {
  const { stores } = deps;
  const clientIp = checkClientIp(input.clientIp);
  const ok = await throttledAttempt(
    stores.attempts,
    { email: identity.email, clientIp: clientIp === "" ? null : countedClientIp(clientIp, deps.ipv6Prefix) },
    now,
    async () => {
      const stored = await stores.identities.findByUuid(identity.identityUuid);
      return stored !== null && (await verifyPassword(stored.passwordHash, input.password)) ? true : null;
    },
    undefined,
    (refusal) => {
      deps.securityEvents({ event: "auth.throttled", identityUuid: identity.identityUuid, clientIp, step: input.purpose, ...refusal });
    },
  );
  if (ok === null) {
    deps.securityEvents({ event: "auth.reauth.failed", identityUuid: identity.identityUuid, clientIp, purpose: input.purpose });
    throw new DomainError(IdentityReason.InvalidCredentials, "current password is incorrect");
  }
}

/**
 * Changes the caller's password after checking the current one
 * (verifyCurrentPassword), then revokes every other session of the identity in
 * the same transaction. For a privileged identity it is a change of trust: it
 * needs MFA within the last 15 minutes (MFA_RECENT_REQUIRED). The new password
 * must pass checkNewPassword (else INVALID_ARGUMENT, before the current one is checked).
 */
export async function changePassword(
  deps: IdentityDeps,
  input: { sessionToken: string; currentPassword: string; newPassword: string; clientIp: string },
): Promise<void> {
  const now = deps.clock();
  const live = await callerSessionAfterMfa(deps, input.sessionToken, now);
  const { session, identity } = live;
  const principal = humanPrincipal(live);
  if (principal.privileged) requireRecentMfa(principal, now);
  await checkNewPassword(input.newPassword, identity.email, "new_password");
  await verifyCurrentPassword(deps, identity, { password: input.currentPassword, clientIp: input.clientIp, purpose: "password_change" }, now);
  const passwordHash = await hashPassword(input.newPassword);
  await deps.stores.transaction(async (tx) => {
    await tx.identities.setPasswordHash(identity.identityUuid, passwordHash, now);
    await tx.sessions.revokeAllOf(identity.identityUuid, now, session.sessionUuid);
    await recordChange(tx, deps, identity, { action: "identity.password.change", targetType: "identity", targetUuid: identity.identityUuid }, now);
  });
}
