import { DomainError } from "@payin/errors";
import { isUuid } from "@payin/ids";
import { recordChange } from "./audit-outbox.js";
import { requirePermission, requireRecentMfa } from "./caller.js";
import { normalizeEmail } from "./email.js";
import { checkNewPassword, generatePassword, hashPassword } from "./password.js";
import { isRole, ROLES, type Role } from "./permissions.js";
import type { HumanPrincipal } from "./principal.js";
import { IdentityReason } from "./reasons.js";
import { issueRecoveryCodes } from "./recovery-codes.js";
import { seal } from "@payin/sealing";
import { withoutHash, type Identity, type IdentityDeps, type IdentityStatus } from "./stores.js";
import { generateTotpSecret, otpauthUri } from "./totp.js";

export const LIST_DEFAULT_LIMIT = 20;
export const LIST_MAX_LIMIT = 100;

function invalid(message: string): DomainError<IdentityReason> {
  return new DomainError(IdentityReason.InvalidArgument, message);
}

function notFound(): DomainError<IdentityReason> {
  return new DomainError(IdentityReason.IdentityNotFound, "identity not found");
}

function emailTaken(): DomainError<IdentityReason> {
  return new DomainError(IdentityReason.IdentityEmailTaken, "an identity with this email exists");
}

function checkedEmail(input: string): string {
  const email = normalizeEmail(input);
  if (email === null) throw invalid("email must be an email address");
  return email;
}

/** Known role names, deduplicated and sorted; INVALID_ARGUMENT for any other. */
export function checkRoles(roles: readonly string[]): Role[] {
  for (const role of roles) if (!isRole(role)) throw invalid(`roles must be among ${ROLES.join(", ")}`);
  return [...new Set(roles as Role[])].sort();
}

/**
 * The administrator a change acts for: a person holding `permission` whose MFA
 * was completed within the last 15 minutes (else PERMISSION_DENIED: FORBIDDEN,
 * MFA_REQUIRED, or MFA_RECENT_REQUIRED when it was completed longer ago). A null
 * session token means no person acts: the operator CLI with its service
 * credential alone, which the RPC layer passes only for such a caller
 * (rpc/callers.ts, ACT_WITHOUT_PERSON).
 */
async function requireRecentAdministrator(
  deps: IdentityDeps,
  sessionToken: string | null,
  permission: "identity.create" | "identity.manage",
  now: Date,
): Promise<HumanPrincipal | null> {
  if (sessionToken === null) return null;
  const caller = await requirePermission(deps, sessionToken, permission, now);
  requireRecentMfa(caller, now);
  return caller;
}

/**
 * Creates an identity. The caller needs identity.create and MFA completed within
 * the last 15 minutes (requireRecentAdministrator). The
 * email is stored lower-cased; a taken email (in any case) is IDENTITY_EMAIL_TAKEN.
 * A guessable password, or one containing the email's name, is INVALID_ARGUMENT
 * (checkNewPassword). The identity and its audit record (identity.create) are
 * written in one transaction.
 */
export async function createIdentity(
  deps: IdentityDeps,
  input: { sessionToken: string | null; email: string; password: string; roles: readonly string[] },
): Promise<Identity> {
  const now = deps.clock();
  const person = await requireRecentAdministrator(deps, input.sessionToken, "identity.create", now);
  const email = checkedEmail(input.email);
  await checkNewPassword(input.password, email);
  const roles = checkRoles(input.roles);
  const identity: Identity = { identityUuid: deps.newId(), email, status: "active", roles, mfaEnrolled: false, createdAt: now };
  const passwordHash = await hashPassword(input.password);
  await deps.stores.transaction(async (tx) => {
    if (!(await tx.identities.insert(identity, passwordHash))) throw emailTaken();
    await recordChange(tx, deps, person, { action: "identity.create", targetType: "identity", targetUuid: identity.identityUuid }, now);
  });
  return identity;
}

/**
 * A page of identities (permission identity.read; a null session token: the
 * operator CLI, see requireRecentAdministrator); limit 1 to 100, default 20.
 */
export async function listIdentities(
  deps: IdentityDeps,
  input: { sessionToken: string | null; limit: number; offset: number },
): Promise<{ identities: Identity[]; total: number }> {
  if (input.sessionToken !== null) await requirePermission(deps, input.sessionToken, "identity.read", deps.clock());
  const limit = input.limit === 0 ? LIST_DEFAULT_LIMIT : input.limit;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIST_MAX_LIMIT) throw invalid(`limit must be between 1 and ${LIST_MAX_LIMIT}`);
  if (!Number.isInteger(input.offset) || input.offset < 0) throw invalid("offset must be 0 or more");
  return deps.stores.identities.list(limit, input.offset);
}

/**
 * One identity by uuid, for an operation elsewhere that refers to it (the caller
 * of that operation is checked there). Unknown or malformed: IDENTITY_NOT_FOUND.
 */
export async function getIdentity(deps: IdentityDeps, identityUuid: string): Promise<Identity> {
  if (!isUuid(identityUuid)) throw notFound();
  const found = await deps.stores.identities.findByUuid(identityUuid);
  if (!found) throw notFound();
  return withoutHash(found);
}

/**
 * Disables or locks an identity and revokes all its sessions in the same
 * transaction, or restores a disabled or locked one to active (its sessions stay
 * revoked: it signs in again; its counted sign-in failures are forgiven, as
 * resetSignInFailures does, so it is not left throttled). Needs identity.manage and MFA completed within the
 * last 15 minutes. Already in that state: IDENTITY_ALREADY_DISABLED,
 * IDENTITY_ALREADY_LOCKED or IDENTITY_ALREADY_ACTIVE; disabling or locking the
 * last active platform_admin: LAST_PLATFORM_ADMIN.
 */
export async function setIdentityStatus(
  deps: IdentityDeps,
  input: { sessionToken: string | null; identityUuid: string; status: string },
): Promise<Identity> {
  const now = deps.clock();
  const person = await requireRecentAdministrator(deps, input.sessionToken, "identity.manage", now);
  if (input.status !== "disabled" && input.status !== "locked" && input.status !== "active") {
    throw invalid('status must be "disabled", "locked" or "active"');
  }
  const status: IdentityStatus = input.status;
  if (!isUuid(input.identityUuid)) throw notFound();
  return deps.stores.transaction(async (tx) => {
    // Status changes take part in the platform_admin roster lock, so RemoveRole's
    // "last active platform_admin" count cannot be raced by a concurrent disable.
    await tx.identities.lockAdminRoster();
    const target = await tx.identities.findByUuid(input.identityUuid, { forUpdate: true });
    if (!target) throw notFound();
    if (target.status === status) throw alreadyInStatus(status);
    const record = { action: `identity.${STATUS_VERB[status]}`, targetType: "identity", targetUuid: target.identityUuid };
    if (status === "active") {
      await tx.identities.setStatus(target.identityUuid, status, now);
      await tx.attempts.forgive(target.email);
      await recordChange(tx, deps, person, record, now);
      return { ...withoutHash(target), status };
    }
    // Disabling or locking the last active platform_admin would leave the platform
    // with nobody to administer it, as removing its role would.
    if (
      target.status === "active" &&
      target.roles.includes("platform_admin") &&
      (await tx.identities.countActiveHolders("platform_admin", target.identityUuid)) === 0
    ) {
      throw new DomainError(IdentityReason.LastPlatformAdmin, `the last active platform_admin cannot be ${status}`);
    }
    await tx.identities.setStatus(target.identityUuid, status, now);
    await tx.sessions.revokeAllOf(target.identityUuid, now);
    await recordChange(tx, deps, person, record, now);
    return { ...withoutHash(target), status };
  });
}

/**
 * Forgives the counted sign-in failures of the identity's email (throttle.ts):
 * they stop counting toward the account's delays and cap (100 consecutive
 * failures refuse sign-in for up to 24 hours) and toward the limit per (email,
 * client IP); they still count toward their client IP's own limit, so an
 * address that guessed stays throttled. Needs identity.manage and MFA completed
 * within the last 15 minutes. Unknown or malformed uuid: IDENTITY_NOT_FOUND.
 * Answers the identity and how many failures were forgiven (0 is no error).
 */
export async function resetSignInFailures(
  deps: IdentityDeps,
  input: { sessionToken: string | null; identityUuid: string },
): Promise<{ identity: Identity; forgiven: number }> {
  const now = deps.clock();
  const person = await requireRecentAdministrator(deps, input.sessionToken, "identity.manage", now);
  if (!isUuid(input.identityUuid)) throw notFound();
  const target = await deps.stores.identities.findByUuid(input.identityUuid);
  if (!target) throw notFound();
  const forgiven = await deps.stores.transaction(async (tx) => {
    const count = await tx.attempts.forgive(target.email);
    await recordChange(tx, deps, person, { action: "identity.sign_in_failures.reset", targetType: "identity", targetUuid: target.identityUuid }, now);
    return count;
  });
  return { identity: withoutHash(target), forgiven };
}

/** The verb of a status change, as its audit action names it (identity.disable, …). */
const STATUS_VERB: Readonly<Record<IdentityStatus, string>> = { disabled: "disable", locked: "lock", active: "activate" };

function alreadyInStatus(status: IdentityStatus): DomainError<IdentityReason> {
  const reasons: Record<IdentityStatus, IdentityReason> = {
    active: IdentityReason.IdentityAlreadyActive,
    disabled: IdentityReason.IdentityAlreadyDisabled,
    locked: IdentityReason.IdentityAlreadyLocked,
  };
  return new DomainError(reasons[status], `the identity is already ${status}`);
}

/**
 * Removes a role (permission identity.manage, MFA within the last 15 minutes).
 * Not held (a name that is no role at all is not held either): ROLE_NOT_HELD. Taking
 * platform_admin from the last active platform_admin: LAST_PLATFORM_ADMIN; the
 * roster lock makes that check safe against concurrent removals and status changes.
 */
export async function removeRole(
  deps: IdentityDeps,
  input: { sessionToken: string | null; identityUuid: string; role: string },
): Promise<Identity> {
  const now = deps.clock();
  const person = await requireRecentAdministrator(deps, input.sessionToken, "identity.manage", now);
  const role = input.role;
  if (!isUuid(input.identityUuid)) throw notFound();
  return deps.stores.transaction(async (tx) => {
    await tx.identities.lockAdminRoster();
    const target = await tx.identities.findByUuid(input.identityUuid, { forUpdate: true });
    if (!target) throw notFound();
    if (!isRole(role) || !target.roles.includes(role)) {
      const what = isRole(role) ? role : `"${role.slice(0, 64)}" (not a role: ${ROLES.join(", ")})`;
      throw new DomainError(IdentityReason.RoleNotHeld, `the identity does not hold ${what}`);
    }
    if (role === "platform_admin" && target.status === "active" && (await tx.identities.countActiveHolders(role, target.identityUuid)) === 0) {
      throw new DomainError(IdentityReason.LastPlatformAdmin, "the last active platform_admin cannot lose the role");
    }
    await tx.identities.deleteRole(target.identityUuid, role);
    await recordChange(tx, deps, person, { action: "identity.role.remove", targetType: "identity", targetUuid: target.identityUuid }, now);
    return { ...withoutHash(target), roles: target.roles.filter((r) => r !== role) };
  });
}

/**
 * Creates the first platform_admin with a generated password, a confirmed TOTP
 * factor and RECOVERY_CODE_COUNT recovery codes (as any enrolment gets), and
 * returns them once. ADMIN_EXISTS when any identity holds platform_admin; the
 * roster lock serialises concurrent bootstraps.
 */
export async function bootstrapAdmin(
  deps: IdentityDeps,
  input: { email: string },
): Promise<{ identity: Identity; password: string; totpUri: string; recoveryCodes: string[] }> {
  const now = deps.clock();
  const email = checkedEmail(input.email);
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  const secret = generateTotpSecret();
  const recovery = issueRecoveryCodes(deps.totpKey);
  const identity: Identity = {
    identityUuid: deps.newId(),
    email,
    status: "active",
    roles: ["platform_admin"],
    mfaEnrolled: true,
    createdAt: now,
  };
  await deps.stores.transaction(async (tx) => {
    await tx.identities.lockAdminRoster();
    if (await tx.identities.anyHolder("platform_admin")) {
      throw new DomainError(IdentityReason.AdminExists, "a platform_admin already exists");
    }
    if (!(await tx.identities.insert(identity, passwordHash))) throw emailTaken();
    const sealed = seal(deps.totpKey, secret, identity.identityUuid);
    await tx.identities.savePendingTotp(identity.identityUuid, sealed, now);
    await tx.identities.confirmTotp(identity.identityUuid, sealed, null, now);
    await tx.identities.replaceRecoveryCodes(identity.identityUuid, recovery.stored, now);
    await recordChange(tx, deps, null, { action: "identity.bootstrap", targetType: "identity", targetUuid: identity.identityUuid }, now);
  });
  return { identity, password, totpUri: otpauthUri(email, secret), recoveryCodes: recovery.codes };
}
