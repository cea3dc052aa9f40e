/**
 * /admin/merchants/{uuid}/machine-credentials: list, read, create, rotate, revoke.
 * Only a person may manage credentials (a machine bearer gets 403 before
 * anything else); the identity service then requires credential.manage and a
 * session that completed MFA (within the last 15 minutes for create, rotate and
 * revoke), from the session token passed as the caller. The merchant checks are
 * the workflow's (workflows/machine-credentials.ts). Tokens appear only in the
 * create and rotate responses, never in logs or audit.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import { readQuery } from "@payin/http";
import { requireHuman, requireMfa, requirePermission, requireRecentMfa, type HumanPrincipal } from "../../auth/authenticator.js";
import type { AppDeps } from "../../deps.js";
import { change } from "../../workflows/audited-change.js";
import {
  createMachineCredential,
  listMachineCredentials,
  readMachineCredential,
  revokeMachineCredential,
  rotateMachineCredential,
  type CredentialDeps,
} from "../../workflows/machine-credentials.js";
import { param, readNoBody } from "./common.js";
import { credentialView, issuedCredentialView } from "./views.js";

const PATH = "/merchants/:uuid/machine-credentials";

export type CredentialRouteDeps = CredentialDeps & Pick<AppDeps, "logger">;

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

export function credentialRoutes(router: Router, deps: CredentialRouteDeps): void {
  router.get(PATH, async (ctx) => {
    const principal = await person(deps, ctx);
    requireCredentialManager(principal, false);
    readQuery(ctx, []);
    const credentials = await listMachineCredentials(deps, principal, param(ctx, "uuid"));
    ctx.body = { credentials: credentials.map(credentialView) };
  });

  // The resource a create's Location names, as the listing shows it.
  router.get(`${PATH}/:credential_uuid`, async (ctx) => {
    const principal = await person(deps, ctx);
    requireCredentialManager(principal, false);
    readQuery(ctx, []);
    const credential = await readMachineCredential(deps, principal, param(ctx, "uuid"), param(ctx, "credential_uuid"));
    ctx.body = { credential: credentialView(credential) };
  });

  router.post(PATH, async (ctx) => {
    const principal = await person(deps, ctx);
    const merchantUuid = param(ctx, "uuid");
    await change(deps, ctx, principal, { action: "credential.create", target: { type: "merchant", uuid: merchantUuid }, successRecordedBy: "gateway" }, async () => {
      requireCredentialManager(principal, true);
      readQuery(ctx, []);
      await readNoBody(ctx);
      const res = await createMachineCredential(deps, principal, merchantUuid);
      ctx.status = 201;
      ctx.set("location", `/api/v1/admin/merchants/${merchantUuid}/machine-credentials/${res.credential!.credentialUuid}`);
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
      const res = await rotateMachineCredential(deps, principal, merchantUuid);
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
      const res = await revokeMachineCredential(deps, principal, merchantUuid, credentialUuid);
      ctx.body = { credential: credentialView(res.credential!) };
    });
  });
}
