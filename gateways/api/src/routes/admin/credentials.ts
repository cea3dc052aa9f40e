/**
 * /admin/merchants/{uuid}/machine-credentials: list, create, rotate, revoke.
 * Only a person may manage credentials (a machine bearer gets 403 before
 * anything else); the identity service then requires credential.manage and a
 * session that completed MFA (within the last 15 minutes for create, rotate and
 * revoke), from the session token passed as the caller. The
 * merchant must exist (404) and, to issue a credential, must not be closed (409).
 * Tokens appear only in the create and rotate responses, never in logs or audit.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import type { AppDeps } from "../../app.js";
import { requireMfa, requirePermission, requireRecentMfa, type Principal } from "../../auth/authenticator.js";
import { readQuery } from "../../http/query.js";
import { change, existingMerchant, openMerchant, param, readNoBody, requireHuman } from "./common.js";
import { credentialView, issuedCredentialView } from "./views.js";

const PATH = "/merchants/:uuid/machine-credentials";

/** Authenticates the caller; a machine credential is refused at once (403). */
async function person(deps: AppDeps, ctx: Context): Promise<Principal> {
  const principal = await deps.auth.authenticate(ctx);
  requireHuman(principal);
  return principal;
}

/**
 * credential.manage and a session that completed MFA, within the last 15 minutes
 * for a change (a credential moves money), checked before any lookup; the
 * identity service checks them again from the session token.
 */
function requireCredentialManager(principal: Principal, change: boolean): void {
  requirePermission(principal, "credential.manage");
  if (change) requireRecentMfa(principal);
  else requireMfa(principal);
}

function caller(principal: Principal) {
  return { sessionToken: principal.sessionToken ?? "" };
}

export function credentialRoutes(router: Router, deps: AppDeps): void {
  router.get(PATH, async (ctx) => {
    const principal = await person(deps, ctx);
    requireCredentialManager(principal, false);
    readQuery(ctx, []);
    const merchantUuid = param(ctx, "uuid");
    await existingMerchant(deps, merchantUuid);
    const res = await deps.identity.listMachineCredentials({ caller: caller(principal), merchantUuid });
    ctx.body = { credentials: res.credentials.map(credentialView) };
  });

  router.post(PATH, async (ctx) => {
    const principal = await person(deps, ctx);
    const merchantUuid = param(ctx, "uuid");
    await change(deps, ctx, principal, { action: "credential.create", target: { type: "merchant", uuid: merchantUuid }, successRecordedBy: "gateway" }, async () => {
      requireCredentialManager(principal, true);
      readQuery(ctx, []);
      await readNoBody(ctx);
      await openMerchant(deps, merchantUuid);
      const res = await deps.identity.createMachineCredential({ caller: caller(principal), merchantUuid });
      ctx.status = 201;
      ctx.body = { credential: issuedCredentialView(res.credential!, res.token) };
      return { type: "machine_credential", uuid: res.credential!.credentialUuid };
    });
  });

  router.post(`${PATH}/rotate`, async (ctx) => {
    const principal = await person(deps, ctx);
    const merchantUuid = param(ctx, "uuid");
    await change(deps, ctx, principal, { action: "credential.rotate", target: { type: "merchant", uuid: merchantUuid }, successRecordedBy: "gateway" }, async () => {
      requireCredentialManager(principal, true);
      readQuery(ctx, []);
      await readNoBody(ctx);
      await openMerchant(deps, merchantUuid);
      // Forgotten even when the answer is lost: the change may have committed.
      const res = await deps.identity.rotateMachineCredential({ caller: caller(principal), merchantUuid }).finally(() => deps.auth.forgetMerchant(merchantUuid));
      ctx.body = { credential: issuedCredentialView(res.credential!, res.token) };
      return { type: "machine_credential", uuid: res.credential!.credentialUuid };
    });
  });

  // Revoking is always allowed, a closed merchant's credentials included.
  router.post(`${PATH}/:credential_uuid/revoke`, async (ctx) => {
    const principal = await person(deps, ctx);
    const merchantUuid = param(ctx, "uuid");
    const credentialUuid = param(ctx, "credential_uuid");
    await change(deps, ctx, principal, { action: "credential.revoke", target: { type: "machine_credential", uuid: credentialUuid }, successRecordedBy: "gateway" }, async () => {
      requireCredentialManager(principal, true);
      readQuery(ctx, []);
      await readNoBody(ctx);
      await existingMerchant(deps, merchantUuid);
      const res = await deps.identity
        .revokeMachineCredential({ caller: caller(principal), merchantUuid, credentialUuid })
        .finally(() => deps.auth.forgetMerchant(merchantUuid));
      ctx.body = { credential: credentialView(res.credential!) };
    });
  });
}
