/** /admin/audit-events: the platform audit log, newest first (permission audit.read). */
import type Router from "@koa/router";
import type { AppDeps } from "../../deps.js";
import { requirePermission } from "../../auth/authenticator.js";
import { listPage, PAGE_PARAMETERS, readQuery, rpcOffset } from "@payin/http";
import { auditEventView, listView } from "@payin/operations";

export function auditRoutes(router: Router, deps: Pick<AppDeps, "auth" | "merchants">): void {
  router.get("/audit-events", async (ctx) => {
    const principal = await deps.auth.authenticate(ctx);
    requirePermission(principal, "audit.read");
    const page = listPage(readQuery(ctx, PAGE_PARAMETERS));
    const res = await deps.merchants.listAuditEvents({ limit: page.limit, offset: rpcOffset(page.offset) });
    ctx.body = listView(res.events.map(auditEventView), res.total, page);
  });
}
