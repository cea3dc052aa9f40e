import type Router from "@koa/router";
import type { AppDeps } from "../deps.js";
import { lowerCaseUuidParams, strictRouter } from "@payin/http";
import { auditRoutes } from "./admin/audit.js";
import { configurationRoutes } from "./admin/configuration.js";
import { credentialRoutes } from "./admin/credentials.js";
import { identityRoutes } from "./admin/identities.js";
import { MERCHANT_ROUTES } from "./admin/merchants.js";
import { securityEvents } from "./admin/security-events.js";
import { mountAdminRoutes } from "./admin/table.js";

/**
 * /api/v1/admin/*: platform administration (docs/platform-api.md). Every route
 * authenticates first (401), then checks a permission from the principal's
 * permission set, never a role name (403), then validates (400) and calls the
 * owning service. Changes name the signed-in identity as their actor and reach
 * the audit log (see admin/common.ts); so do refusals (admin/security-events.ts).
 */
export function adminRoutes(deps: Pick<AppDeps, "logger" | "auth" | "identity" | "merchants" | "allocation" | "clientAddress">): Router {
  const router = strictRouter({ prefix: "/api/v1/admin" });
  // First: it sees every refusal of the routes below (401, 403).
  router.use(securityEvents(deps));
  lowerCaseUuidParams(router, ["uuid", "connection_uuid", "credential_uuid"]);
  identityRoutes(router, deps);
  mountAdminRoutes(router, deps, MERCHANT_ROUTES);
  credentialRoutes(router, deps);
  configurationRoutes(router, deps);
  auditRoutes(router, deps);
  return router;
}
