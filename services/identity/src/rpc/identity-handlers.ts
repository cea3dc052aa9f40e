import type { KeyObject } from "node:crypto";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { systemClock, type Clock, type Database } from "@payin/db";
import type { Logger } from "@payin/logging";
import { uuidv7 } from "@payin/ids";
import { identityV1 } from "@payin/proto";
import { DomainError } from "@payin/errors";
import { ASSERTION_TTL_MS, callerNameOf, changeOriginOf, signActorAssertion } from "@payin/rpc";
import { authenticate } from "../domain/authenticate.js";
import {
  createMachineCredential,
  listMachineCredentials,
  revokeMachineCredential,
  rotateMachineCredential,
} from "../domain/credential-management.js";
import {
  bootstrapAdmin,
  createIdentity,
  getIdentity,
  listIdentities,
  removeRole,
  resetSignInFailures,
  setIdentityStatus,
} from "../domain/identity.js";
import { completeMfa, login } from "../domain/login.js";
import { confirmTotp, enrollTotp } from "../domain/mfa.js";
import { changePassword, getSession, listSessions, logout, revokeSession } from "../domain/own-sessions.js";
import { IdentityReason } from "../domain/reasons.js";
import type { Principal } from "../domain/principal.js";
import type { IdentityDeps } from "../domain/stores.js";
import { pgStores } from "../store/pg-stores.js";
import { ACT_WITHOUT_PERSON } from "./callers.js";
import { authenticatedToPb, credentialToPb, identityToPb, principalToPb, sessionToPb } from "./mappers.js";
import { securityEventLog } from "./security-event-log.js";

/** What the identity handlers need besides the database. */
export interface IdentityHandlerOptions {
  /** AES-256 key (32 bytes) sealing TOTP secrets at rest. */
  totpKey: Buffer;
  /** What every instant is read from; tests pass a clock they can move. Defaults to the system clock. */
  clock?: Clock;
  /** The prefix length IPv6 clients are throttled by (RATE_LIMIT_IPV6_PREFIX); default 64. */
  ipv6Prefix?: number;
  /** The Ed25519 key actor assertions are signed with (ACTOR_ASSERTION_SIGNING_KEY). */
  assertionKey: KeyObject;
}

/** Identity's signed word on who `principal` is, good for ASSERTION_TTL_MS from `now`. */
function actorAssertionOf(key: KeyObject, principal: Principal, now: Date): string {
  const human = principal.kind === "human";
  return signActorAssertion(key, {
    kind: human ? "identity" : "machine_credential",
    uuid: human ? principal.identityUuid : principal.credentialUuid,
    permissions: principal.permissions,
    mfaRecentUntil: human && principal.mfaRecentUntil ? principal.mfaRecentUntil.getTime() : null,
    expiresAt: now.getTime() + ASSERTION_TTL_MS,
  });
}

/** The session token a request acts with; empty when no caller was given. */
function tokenOf(req: { caller?: identityV1.Caller }): string {
  return req.caller?.sessionToken ?? "";
}

/**
 * The session token an administrative operation acts with: the caller's when
 * given; null (no person) only where ACT_WITHOUT_PERSON lets the internal caller
 * call `ctx`'s method without one; otherwise a missing caller is FORBIDDEN.
 */
function sessionTokenOrNone(req: { caller?: identityV1.Caller }, ctx: HandlerContext): string | null {
  if (req.caller) return req.caller.sessionToken;
  const method = ctx.method.localName;
  if (ACT_WITHOUT_PERSON.get(callerNameOf(ctx.values) ?? "")?.has(method)) return null;
  throw new DomainError(IdentityReason.Forbidden, "this operation needs a person signed in with a second factor (payinctl login)");
}

/** IdentityService handlers: proto in, domain call, proto out. */
export function identityHandlers(db: Database, logger: Logger, options: IdentityHandlerOptions): ServiceImpl<typeof identityV1.IdentityService> {
  const source = options.clock ?? systemClock;
  const clock = () => source.now();
  const onBackgroundError = (err: unknown, credentialUuid: string) => {
    logger.warn({ err, credentialUuid }, "could not record machine credential use");
  };
  const securityEvents = securityEventLog(logger);
  const stores = pgStores(db);
  const deps = (ctx?: HandlerContext): IdentityDeps => ({
    origin: ctx && changeOriginOf(ctx),
    stores,
    clock,
    newId: uuidv7,
    totpKey: options.totpKey,
    onBackgroundError,
    securityEvents,
    ipv6Prefix: options.ipv6Prefix,
  });
  return {
    async createMachineCredential(req, ctx) {
      const sessionToken = sessionTokenOrNone(req, ctx);
      const { credential, token } = await createMachineCredential(deps(ctx), { sessionToken, merchantUuid: req.merchantUuid });
      return { credential: credentialToPb(credential), token };
    },
    async authenticate(req) {
      const now = clock();
      const principal = await authenticate(deps().stores, req.token, { now, onBackgroundError });
      return { principal: principalToPb(principal, actorAssertionOf(options.assertionKey, principal, now)) };
    },
    async login(req) {
      const result = await login(deps(), req);
      return result.kind === "authenticated"
        ? { result: { case: "authenticated", value: authenticatedToPb(result.authenticated) } }
        : { result: { case: "mfaChallengeToken", value: result.challengeToken } };
    },
    async completeMfa(req) {
      const authenticated = await completeMfa(deps(), { challengeToken: req.mfaChallengeToken, code: req.code, clientIp: req.clientIp });
      return { authenticated: authenticatedToPb(authenticated) };
    },
    async getSession(req) {
      return { session: sessionToPb(await getSession(deps(), { sessionToken: tokenOf(req) })) };
    },
    async logout(req) {
      await logout(deps(), { sessionToken: tokenOf(req) });
      return {};
    },
    async changePassword(req) {
      await changePassword(deps(), {
        sessionToken: tokenOf(req),
        currentPassword: req.currentPassword,
        newPassword: req.newPassword,
        clientIp: req.clientIp,
      });
      return {};
    },
    async listSessions(req) {
      const sessions = await listSessions(deps(), { sessionToken: tokenOf(req) });
      return { sessions: sessions.map(sessionToPb) };
    },
    async revokeSession(req) {
      await revokeSession(deps(), { sessionToken: tokenOf(req), sessionUuid: req.sessionUuid });
      return {};
    },
    async enrollTotp(req) {
      return enrollTotp(deps(), { sessionToken: tokenOf(req), currentPassword: req.currentPassword, clientIp: req.clientIp });
    },
    async confirmTotp(req) {
      return confirmTotp(deps(), { sessionToken: tokenOf(req), code: req.code });
    },
    async createIdentity(req, ctx) {
      const identity = await createIdentity(deps(ctx), { sessionToken: sessionTokenOrNone(req, ctx), email: req.email, password: req.password, roles: req.roles });
      return { identity: identityToPb(identity) };
    },
    async listIdentities(req, ctx) {
      const { identities, total } = await listIdentities(deps(), { sessionToken: sessionTokenOrNone(req, ctx), limit: req.limit, offset: req.offset });
      return { identities: identities.map(identityToPb), total: BigInt(total) };
    },
    async getIdentity(req) {
      return { identity: identityToPb(await getIdentity(deps(), req.identityUuid)) };
    },
    async setIdentityStatus(req, ctx) {
      const identity = await setIdentityStatus(deps(ctx), { sessionToken: sessionTokenOrNone(req, ctx), identityUuid: req.identityUuid, status: req.status });
      return { identity: identityToPb(identity) };
    },
    async removeRole(req, ctx) {
      const identity = await removeRole(deps(ctx), { sessionToken: sessionTokenOrNone(req, ctx), identityUuid: req.identityUuid, role: req.role });
      return { identity: identityToPb(identity) };
    },
    async resetSignInFailures(req, ctx) {
      const { identity, forgiven } = await resetSignInFailures(deps(ctx), { sessionToken: sessionTokenOrNone(req, ctx), identityUuid: req.identityUuid });
      return { identity: identityToPb(identity), forgiven };
    },
    async listMachineCredentials(req, ctx) {
      const credentials = await listMachineCredentials(deps(), { sessionToken: sessionTokenOrNone(req, ctx), merchantUuid: req.merchantUuid });
      return { credentials: credentials.map(credentialToPb) };
    },
    async rotateMachineCredential(req, ctx) {
      const { credential, token } = await rotateMachineCredential(deps(ctx), { sessionToken: sessionTokenOrNone(req, ctx), merchantUuid: req.merchantUuid });
      return { credential: credentialToPb(credential), token };
    },
    async revokeMachineCredential(req, ctx) {
      const credential = await revokeMachineCredential(deps(ctx), {
        sessionToken: sessionTokenOrNone(req, ctx),
        merchantUuid: req.merchantUuid,
        credentialUuid: req.credentialUuid,
      });
      return { credential: credentialToPb(credential) };
    },
    async bootstrapAdmin(req, ctx) {
      const { identity, password, totpUri, recoveryCodes } = await bootstrapAdmin(deps(ctx), { email: req.email });
      return { identity: identityToPb(identity), password, totpUri, recoveryCodes };
    },
  };
}
