/**
 * /admin/identities: create, list, disable, lock, activate, forgive sign-in
 * failures, remove a role. Every change needs MFA completed within the last 15
 * minutes; the identity service re-checks the permission and MFA from the
 * session token; the gateway checks them first so a refusal needs no round
 * trip. The changes and their audit are @payin/operations'.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import { createIdentity, IDENTITY_STATUS_CHANGES, identityView, listView, removeRole, resetSignInFailures, setIdentityStatus } from "@payin/operations";
import type { AppDeps } from "../../deps.js";
import { requirePermission, requireRecentMfa, type Principal } from "../../auth/authenticator.js";
import { listPage, PAGE_PARAMETERS, readQuery, requiredString, requiredStringArray, rpcOffset } from "@payin/http";
import { actorOf, operationPorts } from "../../operations.js";
import { param, readBody, readNoBody } from "./common.js";

/** The Caller identity re-checks: the person's session token. */
const callerOf = (principal: Principal) => ({ sessionToken: principal.sessionToken ?? "" });

export function identityRoutes(router: Router, deps: Pick<AppDeps, "auth" | "identity" | "merchants" | "logger">): void {
  const ports = operationPorts(deps);
  /** What a change to an existing identity checks: identity.manage and recent MFA, no query, no body. */
  const manageChecks = (ctx: Context, principal: Principal) => async () => {
    requirePermission(principal, "identity.manage");
    requireRecentMfa(principal);
    readQuery(ctx, []);
    await readNoBody(ctx);
  };

  router.post("/identities", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const identity = await createIdentity(ports, actorOf(ctx, principal), callerOf(principal), async () => {
      // Refused before the body is looked at: 403 whatever it holds.
      requirePermission(principal, "identity.create");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      const body = await readBody(ctx, ["email", "password", "roles"]);
      const email = requiredString(body, "email", { min: 3, max: 254 });
      const password = requiredString(body, "password", { min: 12, max: 128 });
      const roles = requiredStringArray(body, "roles");
      return { email, password, roles };
    });
    ctx.status = 201;
    ctx.set("location", `/api/v1/admin/identities/${identity.uuid}`);
    ctx.body = { identity: identityView(identity) };
  });

  router.get("/identities", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "identity.read");
    const page = listPage(readQuery(ctx, PAGE_PARAMETERS));
    const res = await deps.identity.listIdentities({ caller: callerOf(principal), limit: page.limit, offset: rpcOffset(page.offset) });
    ctx.body = listView(res.identities.map(identityView), res.total, page);
  });

  // The resource an identity create's Location names. Unknown or malformed uuid: 404 IDENTITY_NOT_FOUND.
  router.get("/identities/:uuid", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "identity.read");
    readQuery(ctx, []);
    const res = await deps.identity.getIdentity({ identityUuid: param(ctx, "uuid") });
    ctx.body = { identity: identityView(res.identity!) };
  });

  // Activate restores a disabled or locked identity (409 IDENTITY_ALREADY_ACTIVE when active).
  for (const [verb] of IDENTITY_STATUS_CHANGES) {
    router.post(`/identities/:uuid/${verb}`, async (ctx) => {
      const principal = await deps.auth.authenticate(ctx);
      const identity = await setIdentityStatus(ports, actorOf(ctx, principal), callerOf(principal), param(ctx, "uuid"), verb, manageChecks(ctx, principal));
      ctx.body = { identity: identityView(identity) };
    });
  }

  // Forgives the identity's counted sign-in failures: they stop counting toward
  // the account's delays and cap (100 consecutive failures refuse sign-in for up
  // to 24 hours) and toward the limit per email and client address; they still
  // count toward their address's own limit. Activating an identity does the same.
  router.post("/identities/:uuid/sign-in-failures/reset", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const res = await resetSignInFailures(ports, actorOf(ctx, principal), callerOf(principal), param(ctx, "uuid"), manageChecks(ctx, principal));
    ctx.body = { identity: identityView(res.identity), forgiven_failures: res.forgiven };
  });

  router.delete("/identities/:uuid/roles/:role", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const identity = await removeRole(ports, actorOf(ctx, principal), callerOf(principal), param(ctx, "uuid"), async () => {
      await manageChecks(ctx, principal)();
      return { role: param(ctx, "role") };
    });
    ctx.body = { identity: identityView(identity) };
  });
}
