import { createHash, hash, timingSafeEqual } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import { identityV1 } from "@payin/proto";
import { Code, ConnectError, fromTimestamp, reasonOf } from "@payin/rpc";
import type { Context } from "koa";
import { LRUCache, type Perf } from "lru-cache";
import { ApiError } from "@payin/http";
import type { Permission } from "@payin/permissions";
import { readSessionCookie, type SessionCookie } from "./cookie.js";

/** Who a request acts for, as the gateway uses it. */
export interface Principal {
  kind: "machine" | "human";
  /** Machine principals: the credential's merchant. Null for humans (see memberships). */
  merchantUuid: string | null;
  permissions: ReadonlySet<string>;
  /** Human principals: the identity, its roles and its session. */
  identityUuid?: string | null;
  roles?: readonly string[];
  /** The session token as presented, passed to identity as the Caller of an operation. */
  sessionToken?: string | null;
  sessionUuid?: string | null;
  /** How this request carried the session token (always the session's own transport). */
  transport?: "cookie" | "bearer" | null;
  /**
   * Holds an administrative permission: may act only through a session that
   * completed MFA. Identity's decision (the principal's `privileged`), never
   * made again here. False for machines.
   */
  privileged?: boolean;
  mfaSatisfied?: boolean;
  mfaAuthenticatedAt?: Date | null;
  /** MFA is recent at this request: the Authenticator's clock is not past identity's `mfa_recent_until`. */
  mfaRecent?: boolean;
  /** Identity's signed word on who this is (Principal.actor_assertion), passed with every change so its service stamps the actor. */
  actorAssertion: string;
}

/** A person acting through a live session: every human field is set. */
export interface HumanPrincipal extends Principal {
  kind: "human";
  merchantUuid: null;
  identityUuid: string;
  roles: readonly string[];
  sessionToken: string;
  sessionUuid: string;
  transport: "cookie" | "bearer";
  privileged: boolean;
  mfaSatisfied: boolean;
  mfaAuthenticatedAt: Date | null;
  mfaRecent: boolean;
}

/** The fixed prefix of machine credential tokens (docs/api.md, "Authentication"). */
export const MACHINE_TOKEN_PREFIX = "mpk_";
/** Header a cookie session's state-changing request must carry (docs/api.md, "Authentication"). */
export const CSRF_HEADER = "x-csrf-token";

/** After a failed background re-verification, the next one waits this long. */
const REFRESH_RETRY_MS = 250;
const STATE_CHANGING_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Printable ASCII without spaces: what a token in a header may be. */
const TOKEN_TEXT = /^[\x21-\x7e]{1,512}$/;
/** LRUCache.get's options, shared: the hot path allocates none per request. */
const NO_OPTIONS = {};

/**
 * A cached machine principal. The cache drops it the TTL after the lookup that
 * vouched for it started (the monotonic clock's time, like `refreshAt`).
 */
interface CacheEntry {
  principal: Principal;
  /** From then on, a request using the entry also asks identity again, in the background. */
  refreshAt: number;
  refreshing: boolean;
}

/** What a request presented: the token and the transport that carried it. */
interface Presented {
  token: string;
  transport: "cookie" | "bearer";
}

/** Every 401 carries AUTH_INVALID_CREDENTIALS, the contract's code; the message tells the cases apart. */
const unauthenticated = (message: string) => new ApiError("AUTH_INVALID_CREDENTIALS", message);
const invalidToken = () => unauthenticated("the access token is invalid, expired or revoked");

/**
 * Authenticates requests through the identity service.
 *
 * - Transport: exactly one of the session cookie `__Host-payin_session` and an
 *   `Authorization` header (both → 400 AUTH_AMBIGUOUS).
 * - Machine tokens (prefix `mpk_`, bearer only) are kept for `ttlMs` so the hot
 *   path does not pay a round trip per request; a revoked credential therefore
 *   keeps working for at most `ttlMs` (documented: under 5 s). Past half the TTL,
 *   a request still answers from the cache and asks identity again in the
 *   background; a token in steady use thus never waits for identity, and one that
 *   identity now refuses is dropped. A rotate or revoke
 *   made through this gateway forgets the merchant's entries at once
 *   (`forgetMerchant`), so there the old token stops at the next request; the
 *   delay remains for other gateway replicas and for payinctl. Cache keys are
 *   SHA-256 digests, never tokens; refusals are not cached. At most
 *   `maxEntries` are kept (lru-cache; the least recently used is dropped first).
 * - Human session tokens are never cached: every request asks identity, so a
 *   logout, a revocation, a password change or a lock applies to the next request.
 *   A machine token sent as the cookie is never a session (401, no lookup). A
 *   session is used only through the transport chosen at login (a cookie session's
 *   token sent as a bearer, or the reverse, is 401).
 * - CSRF: a POST, PUT, PATCH or DELETE authenticated by the cookie must carry
 *   `X-CSRF-Token` equal to the session's CSRF token (compared in constant time),
 *   else 403 CSRF_TOKEN_INVALID. Bearer requests need none.
 */
export class Authenticator {
  /** Machine principals by token digest; the least recently used goes first when full. */
  private readonly cache: LRUCache<string, CacheEntry>;
  /** When each merchant's entries were last forgotten (monotonic ms: a wall-clock step must not stretch trust). */
  private readonly forgottenAt = new Map<string, number>();

  constructor(
    private readonly identity: Client<typeof identityV1.IdentityService>,
    private readonly ttlMs: number,
    maxEntries = 10_000,
    /** Wall clock for MFA recency (tests move it); cache expiry uses the monotonic clock. */
    private readonly clock: () => Date = () => new Date(),
    /** Monotonic milliseconds for the cache's TTL and refresh times (tests move it). */
    private readonly monotonic: Perf = performance,
  ) {
    // ttlResolution 0: read the clock at each lookup rather than keep a timer per millisecond.
    this.cache = new LRUCache({ max: maxEntries, ttl: ttlMs, ttlResolution: 0, perf: monotonic });
  }

  /**
   * Authenticates the request (machine or human) and enforces the transport and
   * CSRF rules. Throws 400 (both transports), 401 (none or invalid) or 403 (CSRF).
   */
  async authenticate(ctx: Context): Promise<Principal> {
    const presented = presentedToken(ctx);
    if (presented.token.startsWith(MACHINE_TOKEN_PREFIX)) {
      // A machine token is a bearer credential only; as a cookie it is nothing.
      if (presented.transport === "cookie") throw invalidToken();
      const machine = await this.resolveMachine(presented.token);
      ctx.state.principal = machine;
      return machine;
    }
    const principal = await this.resolveHuman(presented);
    // Kept before the CSRF check, so a refusal can still name who was refused
    // (security events, see routes/admin/security-events.ts).
    ctx.state.principal = principal.principal;
    if (presented.transport === "cookie" && STATE_CHANGING_METHODS.has(ctx.method)) {
      checkCsrf(ctx.get(CSRF_HEADER), principal.csrfToken);
    }
    return principal.principal;
  }

  /**
   * Like `authenticate`, for operations on one's own session (`/auth/*`): only a
   * human session is accepted; a machine token is refused with 401 without a lookup.
   */
  async authenticateHuman(ctx: Context): Promise<HumanPrincipal> {
    const presented = presentedToken(ctx);
    if (presented.token.startsWith(MACHINE_TOKEN_PREFIX)) throw invalidToken();
    const principal = await this.authenticate(ctx);
    return requireHuman(principal);
  }

  private async resolveMachine(token: string): Promise<Principal> {
    const key = hash("sha256", token, "base64url");
    const hit = this.cache.get(key, NO_OPTIONS);
    const now = this.monotonic.now();
    if (hit) {
      if (now >= hit.refreshAt && !hit.refreshing) this.refresh(key, token, hit);
      return hit.principal;
    }
    return this.verifyMachine(key, token, now);
  }

  /** Asks identity about a machine token and keeps the answer (see forgetMerchant). */
  private async verifyMachine(key: string, token: string, startedAt: number): Promise<Principal> {
    const p = await this.lookUp(token);
    if (p.kind !== identityV1.PrincipalKind.MACHINE || !p.merchantUuid) throw invalidToken();
    const principal: Principal = { kind: "machine", merchantUuid: p.merchantUuid, permissions: new Set(p.permissions), actorAssertion: p.actorAssertion };
    // A lookup that was under way when the merchant's credentials changed may
    // have seen the old state: it answers this request but is not kept.
    if ((this.forgottenAt.get(p.merchantUuid) ?? -1) < startedAt) {
      this.cache.set(key, { principal, refreshAt: startedAt + this.ttlMs / 2, refreshing: false }, { start: startedAt });
    }
    return principal;
  }

  /** Re-verifies a cached token in the background; a refusal drops it, a failure leaves it to expire. */
  private refresh(key: string, token: string, entry: CacheEntry): void {
    entry.refreshing = true;
    this.verifyMachine(key, token, this.monotonic.now()).catch((error: unknown) => {
      if (error instanceof ApiError && error.status === 401 && this.cache.peek(key) === entry) this.cache.delete(key);
      // Identity unreachable: try again a little later, until the entry expires.
      entry.refreshAt = this.monotonic.now() + REFRESH_RETRY_MS;
      entry.refreshing = false;
    });
  }

  /**
   * Drops every cached machine principal of `merchantUuid`, after its credential
   * was rotated or revoked: the next request with any of its tokens asks identity.
   */
  forgetMerchant(merchantUuid: string): void {
    const now = this.monotonic.now();
    this.forgottenAt.set(merchantUuid, now);
    const keys = [...this.cache.entries()].filter(([, entry]) => entry.principal.merchantUuid === merchantUuid).map(([key]) => key);
    for (const key of keys) this.cache.delete(key);
    // Only lookups started within the last TTL can still be in flight with old news.
    for (const [merchant, at] of this.forgottenAt) if (at < now - this.ttlMs - 60_000) this.forgottenAt.delete(merchant);
  }

  /** Resolves a session token: never cached. */
  private async resolveHuman(presented: Presented): Promise<{ principal: HumanPrincipal; csrfToken: string }> {
    const p = await this.lookUp(presented.token);
    if (p.kind !== identityV1.PrincipalKind.HUMAN || !p.identityUuid || !p.sessionUuid) throw invalidToken();
    if (p.transport !== presented.transport) {
      throw unauthenticated(`this session was opened for the ${p.transport || "other"} transport; send its token that way`);
    }
    const mfaAuthenticatedAt = fromTimestamp(p.mfaAuthenticatedAt) ?? null;
    const mfaRecentUntil = fromTimestamp(p.mfaRecentUntil);
    return {
      principal: {
        kind: "human",
        merchantUuid: null,
        permissions: new Set(p.permissions),
        identityUuid: p.identityUuid,
        roles: [...p.roles],
        sessionToken: presented.token,
        sessionUuid: p.sessionUuid,
        transport: presented.transport,
        privileged: p.privileged,
        mfaSatisfied: p.mfaSatisfied,
        mfaAuthenticatedAt,
        mfaRecent: mfaRecentUntil !== undefined && this.clock().getTime() <= mfaRecentUntil.getTime(),
        actorAssertion: p.actorAssertion,
      },
      csrfToken: p.csrfToken,
    };
  }

  private async lookUp(token: string): Promise<identityV1.Principal> {
    try {
      const res = await this.identity.authenticate({ token });
      if (!res.principal) throw new Error("identity answered Authenticate without a principal");
      return res.principal;
    } catch (error) {
      // The identity service refused the token. (A refused *service* credential
      // carries no reason; the error middleware masks it as a 500.)
      if (error instanceof ConnectError && error.code === Code.Unauthenticated && reasonOf(error)) throw invalidToken();
      throw error;
    }
  }
}

/** The credentials a request carries: its Authorization header ("" without one) and its session cookie. */
export interface Credentials {
  authorization: string;
  cookie: SessionCookie;
}

/**
 * The credentials the request carries, at most one of the session cookie and an
 * Authorization header, each at most once; else 400 AUTH_AMBIGUOUS. The one
 * rule of every route, sign-in included (a sign-in with both is refused too).
 */
export function unambiguousCredentials(ctx: Context): Credentials {
  const header = ctx.get("authorization");
  const cookie = readSessionCookie(ctx.get("cookie"));
  if (cookie.kind === "ambiguous") {
    throw new ApiError("AUTH_AMBIGUOUS", "the session cookie was sent more than once; send it once");
  }
  // Node keeps only the first of repeated Authorization headers.
  if ((ctx.req.headersDistinct.authorization?.length ?? 0) > 1) {
    throw new ApiError("AUTH_AMBIGUOUS", "the Authorization header was sent more than once; send it once");
  }
  if (header && cookie.kind === "present") {
    throw new ApiError("AUTH_AMBIGUOUS", "send either the session cookie or an Authorization header, not both");
  }
  return { authorization: header, cookie };
}

/**
 * The token the request carries and how: the session cookie XOR an Authorization
 * header. Both → 400; neither, or a malformed one → 401.
 */
function presentedToken(ctx: Context): Presented {
  const { authorization: header, cookie } = unambiguousCredentials(ctx);
  if (cookie.kind === "present") {
    if (!TOKEN_TEXT.test(cookie.value)) throw invalidToken();
    return { token: cookie.value, transport: "cookie" };
  }
  if (!header) {
    throw unauthenticated("authentication required: send Authorization: Bearer <token> or the session cookie");
  }
  const token = bearerTokenOf(header);
  if (token === null) throw unauthenticated("the Authorization header must be: Bearer <token>");
  return { token, transport: "bearer" };
}

/**
 * The token of an `Authorization: Bearer <token>` header value, or null when it
 * is not one. The scheme is case-insensitive (RFC 9110 §11.1); the token is not,
 * and must be 1 to 512 printable ASCII characters without spaces.
 */
export function bearerTokenOf(header: string): string | null {
  return /^bearer ([\x21-\x7e]{1,512})$/i.exec(header)?.[1] ?? null;
}

/** 403 CSRF_TOKEN_INVALID unless `sent` equals the session's CSRF token (constant time). */
function checkCsrf(sent: string, expected: string): void {
  // Digests have equal lengths, so timingSafeEqual neither throws nor leaks the length.
  const digest = (text: string) => createHash("sha256").update(text).digest();
  if (!sent || !expected || !timingSafeEqual(digest(sent), digest(expected))) {
    throw new ApiError("CSRF_TOKEN_INVALID", "a state-changing request with the session cookie needs the X-CSRF-Token header of the session");
  }
}

/** Throws 403 unless the principal is a person with a session (a machine bearer is 403). */
export function requireHuman(principal: Principal): HumanPrincipal {
  if (principal.kind !== "human" || !principal.identityUuid || !principal.sessionToken || !principal.sessionUuid || !principal.transport) {
    throw new ApiError("FORBIDDEN", "this operation needs a signed-in person; a machine credential may not perform it");
  }
  return principal as HumanPrincipal;
}

/**
 * Throws 403 unless the principal holds `permission` (FORBIDDEN) and, when it is
 * privileged, its session completed MFA (MFA_REQUIRED): an identity with an
 * administrative permission acts only after enrolling TOTP and signing in with it.
 */
export function requirePermission(principal: Principal, permission: Permission): void {
  if (!principal.permissions.has(permission)) {
    throw new ApiError("FORBIDDEN", `this operation needs the permission ${permission}`);
  }
  requireMfaIfPrivileged(principal);
}

const ENROL_HINT = "enrol TOTP (POST /api/v1/auth/mfa/totp, then /auth/mfa/totp/confirm) and sign in again completing MFA";

/** Throws 403 MFA_REQUIRED when a privileged principal's session has not completed MFA. */
export function requireMfaIfPrivileged(principal: Principal): void {
  if (principal.privileged && !principal.mfaSatisfied) {
    throw new ApiError("MFA_REQUIRED", `an identity with administrative permissions must complete MFA before acting: ${ENROL_HINT}`);
  }
}

/** Throws 403 MFA_REQUIRED unless the session completed MFA (at any time). */
export function requireMfa(principal: Principal): void {
  if (!principal.mfaSatisfied) {
    throw new ApiError("MFA_REQUIRED", `this operation needs a session that completed MFA: ${ENROL_HINT}`);
  }
}

/**
 * For changes that move money or trust: throws 403 unless the session completed
 * MFA within the last 15 minutes — MFA_REQUIRED when it never did,
 * MFA_RECENT_REQUIRED when it did longer ago.
 */
export function requireRecentMfa(principal: Principal): void {
  if (!principal.mfaSatisfied) {
    throw new ApiError("MFA_REQUIRED", `this operation needs a session that completed MFA within the last 15 minutes: ${ENROL_HINT}`);
  }
  if (!principal.mfaRecent) {
    throw new ApiError("MFA_RECENT_REQUIRED", "this operation needs MFA completed within the last 15 minutes; sign in again completing MFA");
  }
}

/** Throws 403 unless the principal acts for `merchantUuid`; decided before any lookup. */
export function requireMerchant(principal: Principal, merchantUuid: string): void {
  if (principal.merchantUuid !== merchantUuid) {
    throw new ApiError("FORBIDDEN", "the credential does not belong to this merchant");
  }
}
