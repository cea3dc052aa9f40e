import { DomainError } from "@payin/errors";
import { normalizeEmail } from "./email.js";
import { invalidToken } from "./machine-credential.js";
import { useSecondFactor } from "./mfa.js";
import { hashOpaqueToken, newOpaqueToken } from "./opaque-token.js";
import { checkPasswordRules, verifyPassword } from "./password.js";
import { IdentityReason } from "./reasons.js";
import { openSession, parseTransport, type SessionView } from "./session.js";
import { withoutHash, type IdentityDeps } from "./stores.js";
import type { LoginFailureReason } from "./security-events.js";
import { countedClientIp, throttledAttempt } from "./throttle.js";

/** An MFA challenge can be completed within this long after the password check. */
export const MFA_CHALLENGE_TTL_MS = 5 * 60_000;
const CLIENT_IP_MAX_LENGTH = 64;

/** The one answer to a failed sign-in: it never says what was wrong. */
export function invalidCredentials(): DomainError<IdentityReason> {
  return new DomainError(IdentityReason.InvalidCredentials, "invalid email or password");
}

/** A wrong, reused or malformed second-factor code: the same reason, its own message. */
export function invalidSecondFactor(): DomainError<IdentityReason> {
  return new DomainError(IdentityReason.InvalidCredentials, "invalid code");
}

/** A new session and its token (the token exists only here). */
export interface Authenticated {
  session: SessionView;
  token: string;
}

export type LoginResult = { kind: "authenticated"; authenticated: Authenticated } | { kind: "mfa_required"; challengeToken: string };

/** The client IP as given (empty when the caller gave none); INVALID_ARGUMENT when too long. */
export function checkClientIp(clientIp: string): string {
  if (clientIp.length > CLIENT_IP_MAX_LENGTH) {
    throw new DomainError(IdentityReason.InvalidArgument, `client_ip must have at most ${CLIENT_IP_MAX_LENGTH} characters`);
  }
  // An empty client IP is its own bucket: callers that omit it share one limit.
  return clientIp;
}

/**
 * Signs a person in. Unknown email, wrong password, and a disabled or locked
 * identity all fail with the same AUTH_INVALID_CREDENTIALS after the same argon2id
 * work. Attempts are throttled (see throttle.ts). An identity with confirmed TOTP
 * gets a single-use challenge token, valid 5 minutes, instead of a session.
 */
export async function login(
  deps: IdentityDeps,
  input: { email: string; password: string; transport: string; clientIp: string },
): Promise<LoginResult> {
  const email = normalizeEmail(input.email);
  if (email === null) throw new DomainError(IdentityReason.InvalidArgument, "email must be an email address");
  checkPasswordRules(input.password);
  const transport = parseTransport(input.transport);
  const clientIp = checkClientIp(input.clientIp);
  const now = deps.clock();
  const { stores } = deps;

  // What the check saw, for the security log only.
  const seen: { identityUuid: string | null; reason: LoginFailureReason } = { identityUuid: null, reason: "unknown_email" };
  const found = await throttledAttempt(
    stores.attempts,
    { email, clientIp: countedClientIp(clientIp, deps.ipv6Prefix), challengeUuid: null },
    now,
    async () => {
      const identity = await stores.identities.findByEmail(email);
      // Verified even for an unknown email (against a dummy hash), so both take as long.
      const matches = await verifyPassword(identity?.passwordHash ?? null, input.password);
      if (identity) {
        seen.identityUuid = identity.identityUuid;
        seen.reason = matches ? "inactive_identity" : "wrong_password";
      }
      return matches && identity !== null && identity.status === "active" ? identity : null;
    },
    // Signed in at once: the consecutive failures start again. With MFA, only the second factor does that.
    (identity) => (identity.mfaEnrolled ? "verified" : "succeeded"),
    async (refusal) => {
      // Looked up whether or not the email exists, so a refusal takes as long either way.
      const identity = await stores.identities.findByEmail(email);
      deps.securityEvents({ event: "auth.throttled", identityUuid: identity?.identityUuid ?? null, clientIp, step: "login", ...refusal });
    },
  );
  if (found === null) {
    deps.securityEvents({ event: "auth.login.failed", identityUuid: seen.identityUuid, clientIp, reason: seen.reason });
    throw invalidCredentials();
  }
  deps.securityEvents({ event: "auth.login.succeeded", identityUuid: found.identityUuid, clientIp, mfaRequired: found.mfaEnrolled });

  if (found.mfaEnrolled) {
    const { token, hash } = newOpaqueToken();
    await stores.sessions.insertChallenge({
      challengeUuid: deps.newId(),
      identityUuid: found.identityUuid,
      tokenHash: hash,
      transport,
      createdAt: now,
      expiresAt: new Date(now.getTime() + MFA_CHALLENGE_TTL_MS),
      consumedAt: null,
    });
    return { kind: "mfa_required", challengeToken: token };
  }
  const { view, token } = await openSession(stores.sessions, {
    sessionUuid: deps.newId(),
    identity: withoutHash(found),
    transport,
    now,
    primaryAuthenticatedAt: now,
    mfaAuthenticatedAt: null,
  });
  return { kind: "authenticated", authenticated: { session: view, token } };
}

/**
 * Completes an MFA challenge with a TOTP code or a recovery code and opens an
 * MFA-satisfied session with the transport chosen at login. An unknown, expired or
 * spent challenge fails with AUTH_INVALID_TOKEN; a wrong or used code with
 * AUTH_INVALID_CREDENTIALS, counted as a failed attempt for the challenge, the
 * identity's email and the client IP (the challenge stays usable until it
 * expires or has seen 5 wrong codes). The code, the challenge and the new
 * session are committed together or not at all.
 */
export async function completeMfa(
  deps: IdentityDeps,
  input: { challengeToken: string; code: string; clientIp: string },
): Promise<Authenticated> {
  const clientIp = checkClientIp(input.clientIp);
  const now = deps.clock();
  const { stores } = deps;
  const hash = hashOpaqueToken(input.challengeToken);
  const challenge = hash ? await stores.sessions.findChallenge(hash) : null;
  if (!challenge || challenge.consumedAt !== null || now.getTime() >= challenge.expiresAt.getTime()) throw invalidToken();
  const identity = await stores.identities.findByUuid(challenge.identityUuid);
  if (!identity || identity.status !== "active" || !identity.mfaEnrolled) throw invalidToken();

  const authenticated = await throttledAttempt(
    stores.attempts,
    { email: identity.email, clientIp: countedClientIp(clientIp, deps.ipv6Prefix), challengeUuid: challenge.challengeUuid },
    now,
    () =>
    stores.transaction(async (tx): Promise<Authenticated | null> => {
      const factor = await tx.identities.findTotpFactor(identity.identityUuid);
      if (!factor || !(await useSecondFactor(tx.identities, deps.totpKey, factor, input.code, now))) return null;
      // Single use, also against a concurrent completion with another valid code.
      if (!(await tx.sessions.consumeChallenge(challenge.challengeUuid, now))) throw invalidToken();
      return openSession(tx.sessions, {
        sessionUuid: deps.newId(),
        identity: withoutHash(identity),
        transport: challenge.transport,
        now,
        primaryAuthenticatedAt: challenge.createdAt,
        mfaAuthenticatedAt: now,
      }).then(({ view, token }) => ({ session: view, token }));
    }),
    () => "succeeded",
    (refusal) => {
      deps.securityEvents({ event: "auth.throttled", identityUuid: identity.identityUuid, clientIp, step: "mfa", ...refusal });
    },
  );
  if (authenticated === null) {
    deps.securityEvents({ event: "auth.mfa.failed", identityUuid: identity.identityUuid, clientIp });
    throw invalidSecondFactor();
  }
  deps.securityEvents({ event: "auth.mfa.succeeded", identityUuid: identity.identityUuid, clientIp });
  return authenticated;
}
