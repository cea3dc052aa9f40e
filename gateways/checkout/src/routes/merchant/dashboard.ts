/** /merchant: readiness at a glance, webhook endpoints that need attention, the latest checkouts and the latest pay-ins. */
import type Router from "@koa/router";
import { strictRouter } from "@payin/http";
import { ConnectError } from "@payin/rpc";
import type { AppDeps } from "../../deps.js";
import { pairLabel, pairReadinessView } from "../../presentation/readiness-reasons.js";
import { pageArea, renderAreaPage, timeView, WEBHOOK_PERMISSION, type Area } from "./area.js";
import { checkoutRows, payInStatusView, rowMerchant } from "./checkout-rows.js";

export type DashboardDeps = Pick<AppDeps, "identity" | "merchants" | "allocation" | "payins" | "notifications" | "views" | "publicUrl" | "now">;

/** How many checkouts and pay-ins the overview shows. */
export const RECENT_COUNT = 5;

/**
 * For a person who manages webhooks: how many endpoints the platform disabled
 * (gone, failing) and how many fail meanwhile; null for anyone else. When the
 * notifications service cannot answer, the overview says it could not look
 * rather than failing whole.
 */
async function webhookAttention(deps: DashboardDeps, area: Area): Promise<{ disabled: number; failing: number } | { unknown: true } | null> {
  if (!area.session.permissions.has(WEBHOOK_PERMISSION)) return null;
  try {
    const { endpoints } = await deps.notifications.listWebhookEndpoints({ merchantUuid: area.merchantUuid });
    return {
      disabled: endpoints.filter((endpoint) => !endpoint.enabled && endpoint.disabledReason !== "").length,
      failing: endpoints.filter((endpoint) => endpoint.enabled && endpoint.failingSince !== undefined).length,
    };
  } catch (error) {
    if (!(error instanceof ConnectError)) throw error;
    return { unknown: true };
  }
}

export function dashboardRoutes(deps: DashboardDeps): Router {
  const router = strictRouter();

  router.get("/merchant", async (ctx) => {
    const area = await pageArea(deps, ctx);
    if (!area) return;
    const merchantUuid = area.merchantUuid;
    const [readiness, checkouts, intents, webhooks] = await Promise.all([
      deps.allocation.getReadiness({ merchantUuid, pairs: [] }),
      deps.payins.listCheckoutSessions({ merchantUuid, limit: RECENT_COUNT, offset: 0 }),
      deps.payins.listPayInIntents({ merchantUuid, limit: RECENT_COUNT, offset: 0 }),
      webhookAttention(deps, area),
    ]);
    const pairs = readiness.pairs.map(pairReadinessView);
    renderAreaPage(ctx, deps, area, "merchant/dashboard.njk", "dashboard", {
      pairs,
      readyCount: pairs.filter((pair) => pair.ready).length,
      webhooks,
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
