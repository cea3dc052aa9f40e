import { DomainError } from "@payin/errors";
import type { Permission } from "@payin/permissions";
import { authenticate } from "./authenticate.js";
import { invalidToken } from "./machine-credential.js";
import { hasMachinePrefix } from "./machine-token.js";
import type { HumanPrincipal, Principal } from "./principal.js";
import { IdentityReason } from "./reasons.js";
import { humanPrincipal, resolveSession, type LiveSession } from "./session.js";
import type { IdentityDeps } from "./stores.js";

/**
 * The caller's live session, for operations on one's own session (read it, log
 * out, change password, MFA enrolment). A machine token is never a session.
 */
export async function callerSession(deps: IdentityDeps, sessionToken: string, now: Date): Promise<LiveSession> {
  if (hasMachinePrefix(sessionToken)) throw invalidToken();
  return resolveSession(deps.stores.sessions, sessionToken, now);
}

/**
 * Like callerSession, for the own-session operations a privileged identity may
 * perform only after MFA: all but reading the session, logging out and enrolling
 * TOTP, so a password alone cannot entrench itself (list or end the owner's
 * sessions, change the password).
 */
export async function callerSessionAfterMfa(deps: IdentityDeps, sessionToken: string, now: Date): Promise<LiveSession> {
  const live = await callerSession(deps, sessionToken, now);
  requireMfaIfPrivileged(humanPrincipal(live));
  return live;
}

/** Whoever the caller's token stands for: a person or a machine. */
export async function callerPrincipal(deps: IdentityDeps, token: string, now: Date): Promise<Principal> {
  return authenticate(deps.stores, token, { now, onBackgroundError: deps.onBackgroundError });
}

/** A DomainError saying the caller may not do this. */
export function forbidden(): DomainError<IdentityReason> {
  return new DomainError(IdentityReason.Forbidden, "permission denied");
}

/**
 * The caller as a person holding `permission`; machines and people without it fail
 * with PERMISSION_DENIED (FORBIDDEN). A privileged caller (one with any
 * administrative permission) whose session has not completed MFA fails with
 * MFA_REQUIRED: until it enrols TOTP and signs in with it, it may do nothing.
 */
export async function requirePermission(
  deps: IdentityDeps,
  token: string,
  permission: Permission,
  now: Date,
): Promise<HumanPrincipal> {
  const principal = await callerPrincipal(deps, token, now);
  if (principal.kind !== "human" || !principal.permissions.includes(permission)) throw forbidden();
  requireMfaIfPrivileged(principal);
  return principal;
}

function mfaRequired(message: string): DomainError<IdentityReason> {
  return new DomainError(IdentityReason.MfaRequired, `${message}; enrol TOTP (POST /api/v1/auth/mfa/totp) and sign in again with it`);
}

/** Fails with MFA_REQUIRED when a privileged principal's session has not completed MFA. */
export function requireMfaIfPrivileged(principal: HumanPrincipal): void {
  if (principal.privileged && !principal.mfaSatisfied) {
    throw mfaRequired("an identity with an administrative permission may act only through a session that completed MFA");
  }
}

/** Fails with MFA_REQUIRED unless the session completed MFA. */
export function requireMfa(principal: HumanPrincipal): void {
  if (!principal.mfaSatisfied) throw mfaRequired("this operation needs a session that completed MFA");
}

/**
 * Fails unless the session completed MFA within the last 15 minutes: MFA_REQUIRED
 * when it never did, MFA_RECENT_REQUIRED when it did longer ago.
 */
export function requireRecentMfa(principal: HumanPrincipal, now: Date): void {
  const until = principal.mfaRecentUntil;
  if (until === null) throw mfaRequired("this operation needs MFA completed within the last 15 minutes");
  if (now.getTime() > until.getTime()) {
    throw new DomainError(IdentityReason.MfaRecentRequired, "this operation needs MFA completed within the last 15 minutes; sign in again with TOTP");
  }
}

