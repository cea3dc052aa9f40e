import type Router from "@koa/router";
import type { AppDeps } from "../deps.js";
import { lowerCaseUuidParams, strictRouter } from "@payin/http";
import { AUDIT_ROUTES } from "./admin/audit.js";
import { CONFIGURATION_ROUTES } from "./admin/configuration.js";
import { CREDENTIAL_ROUTES } from "./admin/credentials.js";
import { IDENTITY_ROUTES } from "./admin/identities.js";
import { MERCHANT_ROUTES } from "./admin/merchants.js";
import { securityEvents } from "./admin/security-events.js";
import { mountAdminRoutes } from "./admin/table.js";

/**
 * /api/v1/admin/*: platform administration (docs/platform-api.md), declared as
 * tables (admin/table.ts, one per resource group). Every route authenticates
 * first (401), then checks a permission from the principal's permission set,
 * never a role name (403), and MFA where declared, then validates (400) and
 * calls @payin/operations or the owning service. Changes name the signed-in
 * identity as their actor and reach the audit log, refusals included (the
 * operations' audit rule); so do refusals outside a change (admin/security-events.ts).
 */
export function adminRoutes(deps: Pick<AppDeps, "logger" | "auth" | "identity" | "merchants" | "allocation" | "clientAddress">): Router {
  const router = strictRouter({ prefix: "/api/v1/admin" });
  // First: it sees every refusal of the routes below (401, 403).
  router.use(securityEvents(deps));
  lowerCaseUuidParams(router, ["uuid", "connection_uuid", "credential_uuid"]);
  mountAdminRoutes(router, deps, IDENTITY_ROUTES);
  mountAdminRoutes(router, deps, MERCHANT_ROUTES);
  mountAdminRoutes(router, deps, CREDENTIAL_ROUTES);
  mountAdminRoutes(router, deps, CONFIGURATION_ROUTES);
  mountAdminRoutes(router, deps, AUDIT_ROUTES);
  return router;
}
