import { createHash } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import { identityV1 } from "@payin/proto";
import { Code, ConnectError, reasonOf } from "@payin/rpc";
import type { Context } from "koa";
import { ApiError } from "../http/api-error.js";

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
  transport?: "cookie" | "bearer" | null;
  mfaSatisfied?: boolean;
  mfaAuthenticatedAt?: Date | null;
}

interface CacheEntry {
  principal: Principal;
  expiresAt: number;
}

const unauthenticated = (message: string, code = "AUTH_INVALID_CREDENTIALS") => new ApiError(401, code, message);

/**
 * Resolves bearer tokens through the identity service, keeping each answer for
 * `ttlMs` so the hot path does not pay a round trip per request. A revoked
 * credential therefore keeps working for at most `ttlMs` (documented: under 5 s).
 * Cache keys are SHA-256 digests, never tokens; refusals are not cached.
 */
export class Authenticator {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly identity: Client<typeof identityV1.IdentityService>,
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** Authenticates the request or throws a 400/401 ApiError. */
  async authenticate(ctx: Context): Promise<Principal> {
    const header = ctx.get("authorization");
    if (!header) throw unauthenticated("authentication required: send Authorization: Bearer <token>", "AUTH_REQUIRED");
    const match = /^Bearer ([\x21-\x7e]{1,512})$/.exec(header);
    if (!match) throw unauthenticated("the Authorization header must be: Bearer <token>");
    return this.resolve(match[1]!);
  }

  private async resolve(token: string): Promise<Principal> {
    const key = createHash("sha256").update(token).digest("base64url");
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > now) return hit.principal;
    let principal: Principal;
    try {
      const res = await this.identity.authenticate({ token });
      const p = res.principal;
      principal = {
        kind: p?.kind === identityV1.PrincipalKind.HUMAN ? "human" : "machine",
        merchantUuid: p?.merchantUuid || null,
        permissions: new Set(p?.permissions ?? []),
      };
    } catch (error) {
      // The identity service refused the token. (A refused *service* credential
      // carries no reason; the error middleware masks it as a 500.)
      if (error instanceof ConnectError && error.code === Code.Unauthenticated && reasonOf(error)) {
        throw unauthenticated("the access token is invalid, expired or revoked");
      }
      throw error;
    }
    if (this.cache.size >= this.maxEntries) this.evictExpired(now);
    this.cache.set(key, { principal, expiresAt: now + this.ttlMs });
    return principal;
  }

  private evictExpired(now: number): void {
    for (const [key, entry] of this.cache) if (entry.expiresAt <= now) this.cache.delete(key);
    if (this.cache.size >= this.maxEntries) this.cache.clear();
  }
}

/** Throws 403 unless the principal holds `permission`. */
export function requirePermission(principal: Principal, permission: string): void {
  if (!principal.permissions.has(permission)) {
    throw new ApiError(403, "FORBIDDEN", `this operation needs the permission ${permission}`);
  }
}

/** Throws 403 unless the principal acts for `merchantUuid`; decided before any lookup. */
export function requireMerchant(principal: Principal, merchantUuid: string): void {
  if (principal.merchantUuid !== merchantUuid) {
    throw new ApiError(403, "FORBIDDEN", "the credential does not belong to this merchant");
  }
}
