/** /merchant/onboarding: each asset/network pair Ready, or every failing reason in plain words and what to ask the platform for. */
import type Router from "@koa/router";
import { strictRouter } from "@payin/http";
import type { AppDeps } from "../../deps.js";
import { pairReadinessView } from "../../presentation/readiness-reasons.js";
import { merchantStatusName, pageArea, renderAreaPage, timeView } from "./area.js";

export type OnboardingDeps = Pick<AppDeps, "identity" | "merchants" | "allocation" | "views" | "publicUrl" | "now">;

export function onboardingRoutes(deps: OnboardingDeps): Router {
  const router = strictRouter();

  router.get("/merchant/onboarding", async (ctx) => {
    const area = await pageArea(deps, ctx);
    if (!area) return;
    // Every pair the platform serves, in its order (an empty list asks for all).
    const { pairs } = await deps.allocation.getReadiness({ merchantUuid: area.merchantUuid, pairs: [] });
    const views = pairs.map(pairReadinessView);
    renderAreaPage(ctx, deps, area, "merchant/onboarding.njk", "onboarding", {
      pairs: views,
      readyCount: views.filter((pair) => pair.ready).length,
      merchantStatus: merchantStatusName(area.merchant.status),
      checkedAt: timeView(deps.now()),
    });
  });

  return router;
}
