/**
 * /admin/identities: create, list, disable, lock, activate, forgive sign-in
 * failures, remove a role. Every change needs MFA completed within the last 15
 * minutes; the identity service re-checks the permission and MFA from the
 * session token; the gateway checks them first so a refusal needs no round
 * trip, and records every change in the audit log.
 */
import type Router from "@koa/router";
import type { AppDeps } from "../../deps.js";
import { requirePermission, requireRecentMfa } from "../../auth/authenticator.js";
import { listPage, PAGE_PARAMETERS, pagination, readQuery, requiredString, requiredStringArray, rpcOffset } from "@payin/http";
import { change } from "../../workflows/audited-change.js";
import { param, readBody, readNoBody } from "./common.js";
import { identityView } from "./views.js";

export function identityRoutes(router: Router, deps: Pick<AppDeps, "auth" | "identity" | "merchants" | "logger">): void {
  router.post("/identities", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    await change(deps, ctx, principal, { action: "identity.create", target: { type: "identity" }, successRecordedBy: "gateway" }, async () => {
      // Refused before the body is looked at: 403 whatever it holds.
      requirePermission(principal, "identity.create");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      const body = await readBody(ctx, ["email", "password", "roles"]);
      const email = requiredString(body, "email", { min: 3, max: 254 });
      const password = requiredString(body, "password", { min: 12, max: 128 });
      const roles = requiredStringArray(body, "roles");
      const res = await deps.identity.createIdentity({ caller: { sessionToken: principal.sessionToken ?? "" }, email, password, roles });
      ctx.status = 201;
      ctx.set("location", `/api/v1/admin/identities/${res.identity!.uuid}`);
      ctx.body = { identity: identityView(res.identity!) };
      return { type: "identity", uuid: res.identity!.uuid };
    });
  });

  router.get("/identities", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "identity.read");
    const page = listPage(readQuery(ctx, PAGE_PARAMETERS));
    const res = await deps.identity.listIdentities({
      caller: { sessionToken: principal.sessionToken ?? "" },
      limit: page.limit,
      offset: rpcOffset(page.offset),
    });
    ctx.body = { data: res.identities.map(identityView), pagination: pagination(res.total, page) };
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
  for (const [verb, status] of [["disable", "disabled"], ["lock", "locked"], ["activate", "active"]] as const) {
    router.post(`/identities/:uuid/${verb}`, async (ctx) => {
      const principal = await deps.auth.authenticate(ctx);
      const uuid = param(ctx, "uuid");
      await change(deps, ctx, principal, { action: `identity.${verb}`, target: { type: "identity", uuid }, successRecordedBy: "gateway" }, async () => {
        requirePermission(principal, "identity.manage");
        requireRecentMfa(principal);
        readQuery(ctx, []);
        await readNoBody(ctx);
        const res = await deps.identity.setIdentityStatus({ caller: { sessionToken: principal.sessionToken ?? "" }, identityUuid: uuid, status });
        ctx.body = { identity: identityView(res.identity!) };
      });
    });
  }

  // Forgives the identity's counted sign-in failures: they stop counting toward
  // the account's delays and cap (100 consecutive failures refuse sign-in for up
  // to 24 hours) and toward the limit per email and client address; they still
  // count toward their address's own limit. Activating an identity does the same.
  router.post("/identities/:uuid/sign-in-failures/reset", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const uuid = param(ctx, "uuid");
    const target = { type: "identity", uuid };
    await change(deps, ctx, principal, { action: "identity.sign_in_failures.reset", target, successRecordedBy: "gateway" }, async () => {
      requirePermission(principal, "identity.manage");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      await readNoBody(ctx);
      const res = await deps.identity.resetSignInFailures({ caller: { sessionToken: principal.sessionToken ?? "" }, identityUuid: uuid });
      ctx.body = { identity: identityView(res.identity!), forgiven_failures: res.forgiven };
    });
  });

  router.delete("/identities/:uuid/roles/:role", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    const uuid = param(ctx, "uuid");
    await change(deps, ctx, principal, { action: "identity.role.remove", target: { type: "identity", uuid }, successRecordedBy: "gateway" }, async () => {
      requirePermission(principal, "identity.manage");
      requireRecentMfa(principal);
      readQuery(ctx, []);
      await readNoBody(ctx);
      const res = await deps.identity.removeRole({ caller: { sessionToken: principal.sessionToken ?? "" }, identityUuid: uuid, role: param(ctx, "role") });
      ctx.body = { identity: identityView(res.identity!) };
    });
  });
}
