import { DomainError } from "@payin/errors";
import { authenticate } from "./authenticate.js";
import { invalidToken } from "./machine-credential.js";
import { hasMachinePrefix } from "./machine-token.js";
import type { Permission } from "./permissions.js";
import type { HumanPrincipal, Principal } from "./principal.js";
import { IdentityReason } from "./reasons.js";
import { RECENT_MFA_MS, resolveSession, type LiveSession } from "./session.js";
import type { IdentityDeps } from "./stores.js";

/**
 * The caller's live session, for operations on one's own session (read it, log
 * out, change password, MFA enrolment). A machine token is never a session.
 */
export async function callerSession(deps: IdentityDeps, sessionToken: string, now: Date): Promise<LiveSession> {
  if (hasMachinePrefix(sessionToken)) throw invalidToken();
  return resolveSession(deps.stores.sessions, sessionToken, now);
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
 * with PERMISSION_DENIED (FORBIDDEN).
 */
export async function requirePermission(
  deps: IdentityDeps,
  token: string,
  permission: Permission,
  now: Date,
): Promise<HumanPrincipal> {
  const principal = await callerPrincipal(deps, token, now);
  if (principal.kind !== "human" || !principal.permissions.includes(permission)) throw forbidden();
  return principal;
}

/** Fails with MFA_REQUIRED unless the session completed MFA. */
export function requireMfa(principal: HumanPrincipal): void {
  if (!principal.mfaSatisfied) throw new DomainError(IdentityReason.MfaRequired, "this operation needs a session that completed MFA");
}

/** Fails with MFA_REQUIRED unless the session completed MFA within the last 15 minutes. */
export function requireRecentMfa(principal: HumanPrincipal, now: Date): void {
  const at = principal.mfaAuthenticatedAt;
  if (at === null || now.getTime() - at.getTime() > RECENT_MFA_MS) {
    throw new DomainError(IdentityReason.MfaRequired, "this operation needs MFA completed within the last 15 minutes");
  }
}

