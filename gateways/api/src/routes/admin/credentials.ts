/**
 * /admin/merchants/{uuid}/machine-credentials: list, read, create, rotate, revoke.
 * Only a person may manage credentials (a machine bearer gets 403 before
 * anything else); the identity service then requires credential.manage and a
 * session that completed MFA (within the last 15 minutes for create, rotate and
 * revoke), from the session token passed as the caller. The merchant checks
 * and the audit are the operations' (@payin/operations, machine-credentials);
 * a rotate or revoke makes this gateway's authenticator forget the merchant's
 * cached tokens at once. Tokens appear only in the create and rotate
 * responses, never in logs or audit.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import { readQuery } from "@payin/http";
import {
  createMachineCredential,
  credentialView,
  issuedCredentialView,
  listMachineCredentials,
  readMachineCredential,
  revokeMachineCredential,
  rotateMachineCredential,
} from "@payin/operations";
import { requireHuman, requireMfa, requirePermission, requireRecentMfa, type HumanPrincipal } from "../../auth/authenticator.js";
import type { AppDeps } from "../../deps.js";
import { actorOf, operationPorts } from "../../operations.js";
import { param, readNoBody } from "./common.js";

const PATH = "/merchants/:uuid/machine-credentials";

export type CredentialRouteDeps = Pick<AppDeps, "auth" | "identity" | "merchants" | "logger">;

/** Authenticates the caller; a machine credential is refused at once (403). */
async function person(deps: CredentialRouteDeps, ctx: Context): Promise<HumanPrincipal> {
  const principal = await deps.auth.authenticate(ctx);
  return requireHuman(principal);
}

/**
 * credential.manage and a session that completed MFA, within the last 15 minutes
 * for a change (a credential moves money), checked before any lookup; the
 * identity service checks them again from the session token.
 */
function requireCredentialManager(principal: HumanPrincipal, change: boolean): void {
  requirePermission(principal, "credential.manage");
  if (change) requireRecentMfa(principal);
  else requireMfa(principal);
}

/** The Caller identity re-checks: the person's session token. */
const callerOf = (principal: HumanPrincipal) => ({ sessionToken: principal.sessionToken });

export function credentialRoutes(router: Router, deps: CredentialRouteDeps): void {
  const ports = { ...operationPorts(deps), forgetMerchant: (merchantUuid: string) => deps.auth.forgetMerchant(merchantUuid) };
  /** What a change checks once the merchant is known: the manager's rights, no query, no body. */
  const changeChecks = (ctx: Context, principal: HumanPrincipal) => async () => {
    requireCredentialManager(principal, true);
    readQuery(ctx, []);
    await readNoBody(ctx);
  };

  router.get(PATH, async (ctx) => {
    const principal = await person(deps, ctx);
    requireCredentialManager(principal, false);
    readQuery(ctx, []);
    const credentials = await listMachineCredentials(ports, callerOf(principal), param(ctx, "uuid"));
    ctx.body = { credentials: credentials.map(credentialView) };
  });

  // The resource a create's Location names, as the listing shows it.
  router.get(`${PATH}/:credential_uuid`, async (ctx) => {
    const principal = await person(deps, ctx);
    requireCredentialManager(principal, false);
    readQuery(ctx, []);
    const credential = await readMachineCredential(ports, callerOf(principal), param(ctx, "uuid"), param(ctx, "credential_uuid"));
    ctx.body = { credential: credentialView(credential) };
  });

  router.post(PATH, async (ctx) => {
    const principal = await person(deps, ctx);
    const merchantUuid = param(ctx, "uuid");
    const res = await createMachineCredential(ports, actorOf(ctx, principal), callerOf(principal), merchantUuid, changeChecks(ctx, principal));
    ctx.status = 201;
    ctx.set("location", `/api/v1/admin/merchants/${merchantUuid}/machine-credentials/${res.credential.credentialUuid}`);
    ctx.body = { credential: issuedCredentialView(res.credential, res.token) };
  });

  router.post(`${PATH}/rotate`, async (ctx) => {
    const principal = await person(deps, ctx);
    const res = await rotateMachineCredential(ports, actorOf(ctx, principal), callerOf(principal), param(ctx, "uuid"), changeChecks(ctx, principal));
    ctx.body = { credential: issuedCredentialView(res.credential, res.token) };
  });

  // Revoking is always allowed, a closed merchant's credentials included.
  router.post(`${PATH}/:credential_uuid/revoke`, async (ctx) => {
    const principal = await person(deps, ctx);
    const credential = await revokeMachineCredential(
      ports,
      actorOf(ctx, principal),
      callerOf(principal),
      param(ctx, "uuid"),
      param(ctx, "credential_uuid"),
      changeChecks(ctx, principal),
    );
    ctx.body = { credential: credentialView(credential) };
  });
}
