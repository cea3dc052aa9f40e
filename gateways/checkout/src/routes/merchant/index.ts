import type Router from "@koa/router";
import { strictRouter } from "@payin/http";
import type { AppDeps } from "../../deps.js";
import { checkoutRoutes } from "./checkouts.js";
import { dashboardRoutes } from "./dashboard.js";
import { onboardingRoutes } from "./onboarding.js";
import { profileRoutes } from "./profile.js";
import { signInRoutes } from "./sign-in.js";
import { webhookRoutes } from "./webhooks.js";

/**
 * The merchant area under /merchant: sign-in (and the choice of merchant),
 * overview, readiness, profile, checkouts and webhooks. Every page needs a signed-in
 * member of the merchant; every form carries the session's CSRF token.
 */
export function merchantRoutes(deps: AppDeps): Router {
  const router = strictRouter();
  for (const routes of [signInRoutes(deps), dashboardRoutes(deps), onboardingRoutes(deps), profileRoutes(deps), checkoutRoutes(deps), webhookRoutes(deps)]) {
    router.use(routes.routes());
    router.use(routes.allowedMethods({ throw: false }));
  }
  return router;
}
