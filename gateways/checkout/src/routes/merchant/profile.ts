/** /merchant/profile: the merchant, and the signed-in person as identity knows them. */
import type Router from "@koa/router";
import { strictRouter } from "@payin/http";
import type { AppDeps } from "../../deps.js";
import { merchantStatusName, pageArea, renderAreaPage, timeView } from "./area.js";

export type ProfileDeps = Pick<AppDeps, "identity" | "merchants" | "views" | "publicUrl" | "now">;

const ROLE_WORDS: Readonly<Record<string, string>> = {
  merchant_admin: "Merchant administrator: sees checkouts and pay-ins, creates and disables checkouts",
  merchant_member: "Merchant member: sees checkouts and pay-ins",
};

export function profileRoutes(deps: ProfileDeps): Router {
  const router = strictRouter();

  router.get("/merchant/profile", async (ctx) => {
    const area = await pageArea(deps, ctx);
    if (!area) return;
    const { session } = await deps.identity.getSession({ caller: { sessionToken: area.session.sessionToken } });
    const identity = session?.identity;
    renderAreaPage(ctx, deps, area, "merchant/profile.njk", "profile", {
      merchant: {
        uuid: area.merchant.uuid,
        displayName: area.merchant.displayName,
        legalName: area.merchant.legalName ?? null,
        status: merchantStatusName(area.merchant.status),
        createdAt: timeView(area.merchant.createdAt),
      },
      person: {
        email: identity?.email ?? "",
        roles: (identity?.roles ?? []).map((role) => ({ code: role, text: ROLE_WORDS[role] ?? null })),
        mfaEnrolled: identity?.mfaEnrolled ?? false,
        mfaSatisfied: session?.mfaSatisfied ?? false,
        signedInAt: timeView(session?.primaryAuthenticatedAt),
        expiresAt: timeView(session?.expiresAt),
        absoluteExpiresAt: timeView(session?.absoluteExpiresAt),
      },
    });
  });

  return router;
}
