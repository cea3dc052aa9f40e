/** /admin/audit-events: the platform audit log, newest first (permission audit.read). */
import type Router from "@koa/router";
import type { AppDeps } from "../../deps.js";
import { requirePermission } from "../../auth/authenticator.js";
import { intParam, offsetParam, readQuery, rpcOffset } from "@payin/http";
import { auditEventView } from "./views.js";

export function auditRoutes(router: Router, deps: Pick<AppDeps, "auth" | "merchants">): void {
  router.get("/audit-events", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "audit.read");
    const query = readQuery(ctx, ["limit", "offset"]);
    const limit = intParam(query, "limit", 20, 1, 100);
    const offset = offsetParam(query);
    const res = await deps.merchants.listAuditEvents({ limit, offset: rpcOffset(offset) });
    ctx.body = { data: res.events.map(auditEventView), pagination: { total: Number(res.total), limit, offset } };
  });
}
