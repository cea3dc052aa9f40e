/** /merchant: readiness at a glance, the latest checkouts and the latest pay-ins. */
import type Router from "@koa/router";
import { strictRouter } from "@payin/http";
import type { AppDeps } from "../../deps.js";
import { pairLabel, pairReadinessView } from "../../presentation/readiness-reasons.js";
import { pageArea, renderAreaPage, timeView } from "./area.js";
import { checkoutRows, payInStatusView, rowMerchant } from "./checkout-rows.js";

export type DashboardDeps = Pick<AppDeps, "identity" | "merchants" | "allocation" | "payins" | "views" | "publicUrl" | "now">;

/** How many checkouts and pay-ins the overview shows. */
export const RECENT_COUNT = 5;

export function dashboardRoutes(deps: DashboardDeps): Router {
  const router = strictRouter();

  router.get("/merchant", async (ctx) => {
    const area = await pageArea(deps, ctx);
    if (!area) return;
    const merchantUuid = area.merchantUuid;
    const [readiness, checkouts, intents] = await Promise.all([
      deps.allocation.getReadiness({ merchantUuid, pairs: [] }),
      deps.payins.listCheckoutSessions({ merchantUuid, limit: RECENT_COUNT, offset: 0 }),
      deps.payins.listPayInIntents({ merchantUuid, limit: RECENT_COUNT, offset: 0 }),
    ]);
    const pairs = readiness.pairs.map(pairReadinessView);
    renderAreaPage(ctx, deps, area, "merchant/dashboard.njk", "dashboard", {
      pairs,
      readyCount: pairs.filter((pair) => pair.ready).length,
      // Each checkout's payer page asks readiness in its own jurisdiction: the merchant-wide answer above is not its.
      checkouts: await checkoutRows(deps, rowMerchant(area), checkouts.sessions),
      checkoutTotal: Number(checkouts.total),
      payIns: intents.intents.map((intent) => ({
        uuid: intent.intentUuid,
        createdAt: timeView(intent.createdAt),
        reference: intent.reference ?? null,
        amount: intent.expectedAmount,
        pair: pairLabel(intent.asset, intent.rail),
        status: payInStatusView(intent.status),
        expiresAt: timeView(intent.expiresAt),
      })),
      payInTotal: Number(intents.total),
    });
  });

  return router;
}
