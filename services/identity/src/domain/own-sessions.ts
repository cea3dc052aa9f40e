import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { callerSession, callerSessionAfterMfa } from "./caller.js";
import { invalidCredentials } from "./login.js";
import { checkNewPassword, hashPassword, verifyPassword } from "./password.js";
import { IdentityReason } from "./reasons.js";
import { isSessionLive, SESSION_IDLE_MS, sessionView, type SessionView } from "./session.js";
import type { Identity, IdentityDeps } from "./stores.js";
import { throttledAttempt } from "./throttle.js";

/** The caller's session (its idle expiry touched). A challenge token is refused. */
export async function getSession(deps: IdentityDeps, input: { sessionToken: string }): Promise<SessionView> {
  const { session, identity } = await callerSession(deps, input.sessionToken, deps.clock());
  return sessionView(session, identity);
}

/** Ends the caller's session. */
export async function logout(deps: IdentityDeps, input: { sessionToken: string }): Promise<void> {
  const now = deps.clock();
  const { session } = await callerSession(deps, input.sessionToken, now);
  await deps.stores.sessions.revoke(session.sessionUuid, now);
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
  if (!(await deps.stores.sessions.revoke(target.sessionUuid, now))) throw notFound();
}

/**
 * Checks a signed-in person's password again before a sensitive change of their
 * own: a wrong one is AUTH_INVALID_CREDENTIALS and counts as a failed attempt for
 * the email (so the check cannot be used to guess it).
 */
export async function verifyCurrentPassword(deps: IdentityDeps, identity: Identity, password: string, now: Date): Promise<void> {
  const { stores } = deps;
  const ok = await throttledAttempt(stores.attempts, { email: identity.email, clientIp: null }, now, async () => {
    const stored = await stores.identities.findByUuid(identity.identityUuid);
    return stored !== null && (await verifyPassword(stored.passwordHash, password)) ? true : null;
  });
  if (ok === null) throw new DomainError(IdentityReason.InvalidCredentials, "current password is incorrect");
}

/**
 * Changes the caller's password after checking the current one (a wrong one is
 * AUTH_INVALID_CREDENTIALS and counts as a failed attempt for the email), then
 * revokes every other session of the identity in the same transaction. The new
 * password must pass checkNewPassword (else INVALID_ARGUMENT, before the current
 * one is checked).
 */
export async function changePassword(
  deps: IdentityDeps,
  input: { sessionToken: string; currentPassword: string; newPassword: string },
): Promise<void> {
  const now = deps.clock();
  const { session, identity } = await callerSessionAfterMfa(deps, input.sessionToken, now);
  await checkNewPassword(input.newPassword, identity.email, "new_password");
  const { stores } = deps;
  const ok = await throttledAttempt(stores.attempts, { email: identity.email, clientIp: null }, now, async () => {
    const stored = await stores.identities.findByUuid(identity.identityUuid);
    return stored !== null && (await verifyPassword(stored.passwordHash, input.currentPassword)) ? true : null;
  });
  if (ok === null) throw invalidCredentials();
  const passwordHash = await hashPassword(input.newPassword);
  await stores.transaction(async (tx) => {
    await tx.identities.setPasswordHash(identity.identityUuid, passwordHash, now);
    await tx.sessions.revokeAllOf(identity.identityUuid, now, session.sessionUuid);
  });
}
