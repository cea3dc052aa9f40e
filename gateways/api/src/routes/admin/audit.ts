/** /admin/audit-events: the platform audit log, newest first, as a table (table.ts). */
import { rpcOffset } from "@payin/http";
import { auditEventView, listView } from "@payin/operations";
import type { AdminRoute } from "./table.js";

export const AUDIT_ROUTES: readonly AdminRoute[] = [
  {
    method: "GET",
    path: "/audit-events",
    permission: "audit.read",
    paged: true,
    doc: { id: "listAuditEvents", tag: "audit", summary: "Read the audit log, newest first", ok: { 200: "AuditEventList" } },
    async read({ ports, page }) {
      const res = await ports.merchants.listAuditEvents({ limit: page.limit, offset: rpcOffset(page.offset) });
      return { body: listView(res.events.map(auditEventView), res.total, page) };
    },
  },
];
