import { DomainError } from "@payin/errors";
import { invalidToken } from "./machine-credential.js";
import { hashOpaqueToken, newOpaqueToken, randomBase64url } from "./opaque-token.js";
import { isPrivileged, permissionsOf } from "./permissions.js";
import type { HumanPrincipal, Transport } from "./principal.js";
import { IdentityReason } from "./reasons.js";
import type { Identity, SessionStore, StoredSession } from "./stores.js";

/** A session ends after this long without use (docs/platform-api.md, "Sign-in and sessions"). */
export const SESSION_IDLE_MS = 15 * 60_000;
/** A session ends this long after it was created, however much it is used. */
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60_000;
/**
 * last_seen_at is written at most once per this interval per session, so reads do
 * not cost a write each; the idle expiry may therefore come up to this much early.
 */
export const SESSION_TOUCH_RESOLUTION_MS = 10_000;
/** "A recent MFA session": MFA completed within this long (docs/platform-api.md, "Roles and permissions"). */
export const RECENT_MFA_MS = 15 * 60_000;

/** A session as callers see it (never its token). */
export interface SessionView {
  sessionUuid: string;
  identity: Identity;
  /** Idle expiry, capped by the absolute one. */
  expiresAt: Date;
  absoluteExpiresAt: Date;
  mfaSatisfied: boolean;
  primaryAuthenticatedAt: Date;
  mfaAuthenticatedAt: Date | null;
  /** Empty when shown to anyone but the session's own holder. */
  csrfToken: string;
  transport: Transport;
  createdAt: Date;
}

/** A live session and its (active) identity. */
export interface LiveSession {
  session: StoredSession;
  identity: Identity;
}

/** "cookie" or "bearer"; anything else is INVALID_ARGUMENT. */
export function parseTransport(value: string): Transport {
  if (value === "cookie" || value === "bearer") return value;
  throw new DomainError(IdentityReason.InvalidArgument, 'transport must be "cookie" or "bearer"');
}

/** When the session ends if it is not used again. */
export function sessionExpiresAt(session: StoredSession): Date {
  return new Date(Math.min(session.lastSeenAt.getTime() + SESSION_IDLE_MS, session.absoluteExpiresAt.getTime()));
}

/** True while the session is neither revoked nor expired (idle or absolute) at `now`. */
export function isSessionLive(session: StoredSession, now: Date): boolean {
  return session.revokedAt === null && now.getTime() < sessionExpiresAt(session).getTime();
}

/** The view of a session; `withCsrf` false blanks its CSRF token. */
export function sessionView(session: StoredSession, identity: Identity, withCsrf = true): SessionView {
  return {
    sessionUuid: session.sessionUuid,
    identity,
    expiresAt: sessionExpiresAt(session),
    absoluteExpiresAt: session.absoluteExpiresAt,
    mfaSatisfied: session.mfaAuthenticatedAt !== null,
    primaryAuthenticatedAt: session.primaryAuthenticatedAt,
    mfaAuthenticatedAt: session.mfaAuthenticatedAt,
    csrfToken: withCsrf ? session.csrfToken : "",
    transport: session.transport,
    createdAt: session.createdAt,
  };
}

/** The principal a live session acts as; permissions come from the one table. */
export function humanPrincipal({ session, identity }: LiveSession): HumanPrincipal {
  const permissions = permissionsOf(identity.roles);
  return {
    kind: "human",
    identityUuid: identity.identityUuid,
    sessionUuid: session.sessionUuid,
    roles: identity.roles,
    permissions,
    privileged: isPrivileged(permissions),
    mfaSatisfied: session.mfaAuthenticatedAt !== null,
    mfaAuthenticatedAt: session.mfaAuthenticatedAt,
    mfaRecentUntil: session.mfaAuthenticatedAt && new Date(session.mfaAuthenticatedAt.getTime() + RECENT_MFA_MS),
    csrfToken: session.csrfToken,
    transport: session.transport,
  };
}

/**
 * Creates a session for an identity and returns it with its token, which exists
 * only in this return value (the store keeps its SHA-256).
 */
export async function openSession(
  sessions: SessionStore,
  input: {
    sessionUuid: string;
    identity: Identity;
    transport: Transport;
    now: Date;
    primaryAuthenticatedAt: Date;
    mfaAuthenticatedAt: Date | null;
  },
): Promise<{ view: SessionView; token: string }> {
  const { token, hash } = newOpaqueToken();
  const session: StoredSession = {
    sessionUuid: input.sessionUuid,
    identityUuid: input.identity.identityUuid,
    tokenHash: hash,
    csrfToken: randomBase64url(32),
    transport: input.transport,
    createdAt: input.now,
    primaryAuthenticatedAt: input.primaryAuthenticatedAt,
    mfaAuthenticatedAt: input.mfaAuthenticatedAt,
    lastSeenAt: input.now,
    absoluteExpiresAt: new Date(input.now.getTime() + SESSION_ABSOLUTE_MS),
    revokedAt: null,
  };
  await sessions.insert(session);
  return { view: sessionView(session, input.identity), token };
}

/**
 * Resolves a session token to its live session, touching its idle expiry (at most
 * once per SESSION_TOUCH_RESOLUTION_MS). Malformed, unknown, revoked and expired
 * tokens, MFA challenge tokens, and sessions of identities that are not active all
 * fail alike with AUTH_INVALID_TOKEN. Nothing is cached: a revocation applies to
 * the very next call.
 */
export async function resolveSession(sessions: SessionStore, token: string, now: Date): Promise<LiveSession> {
  const hash = hashOpaqueToken(token);
  if (!hash) throw invalidToken();
  const found = await sessions.findByTokenHash(hash);
  if (!found || !isSessionLive(found.session, now) || found.identity.status !== "active") throw invalidToken();
  const { session } = found;
  if (now.getTime() - session.lastSeenAt.getTime() >= SESSION_TOUCH_RESOLUTION_MS) {
    await sessions.touch(session.sessionUuid, now, new Date(now.getTime() - SESSION_TOUCH_RESOLUTION_MS));
    session.lastSeenAt = now;
  }
  return found;
}
