/**
 * What every page of the merchant area shares: the signed-in person and the
 * merchant they act for, the checks before a page is shown or a form is taken
 * (session, CSRF, permission), and rendering inside the area's frame (the
 * merchant's name, navigation, sign-out).
 */
import type { Context } from "koa";
import { ApiError } from "@payin/http";
import type { Permission } from "@payin/permissions";
import { MERCHANT_STATUS, merchantsV1 } from "@payin/proto";
import { fromTimestamp } from "@payin/rpc";
import type { AppDeps } from "../../deps.js";
import { readForm, requireSameOrigin } from "../../http/form.js";
import { checkCsrf, cookie, CSRF_FIELD, currentSession, MERCHANT_COOKIE, type MerchantSession } from "../../merchant-session.js";

export type AreaDeps = Pick<AppDeps, "identity" | "merchants" | "views" | "publicUrl" | "now">;

/** The permission to see the merchant area's pages. */
export const VIEW_PERMISSION: Permission = "merchant.payin.read";
/** The permission to create and disable checkouts (merchant_admin). */
export const MANAGE_PERMISSION: Permission = "checkout.manage";
/** The permission to see and manage webhook endpoints, their secrets and deliveries (merchant_admin). */
export const WEBHOOK_PERMISSION: Permission = "webhook.manage";

/** A request of the merchant area that passed its checks. */
export interface Area {
  session: MerchantSession;
  merchant: merchantsV1.Merchant;
  /** The merchant the person acts for (never null here). */
  merchantUuid: string;
}

/** Pages of the navigation, in order. */
const NAVIGATION = [
  { key: "dashboard", href: "/merchant", label: "Overview" },
  { key: "checkouts", href: "/merchant/checkouts", label: "Checkouts" },
  { key: "new", href: "/merchant/checkouts/new", label: "New checkout", manage: true },
  { key: "onboarding", href: "/merchant/onboarding", label: "Readiness" },
  { key: "webhooks", href: "/merchant/webhooks", label: "Webhooks", permission: WEBHOOK_PERMISSION },
  { key: "profile", href: "/merchant/profile", label: "Profile" },
] as const;

export type NavigationKey = (typeof NAVIGATION)[number]["key"];

/** Answers `303 See Other` to `location` (a path of this gateway). */
export function seeOther(ctx: Context, location: string): void {
  ctx.redirect(location);
  ctx.status = 303;
}

/** Renders `template` as the answer, with `status`. */
export function renderPage(ctx: Context, deps: Pick<AppDeps, "views">, template: string, context: Record<string, unknown>, status = 200): void {
  ctx.status = status;
  ctx.type = "html";
  ctx.body = deps.views.render(template, context);
}

/** The area's frame for the templates: merchant name, navigation, CSRF token for the sign-out form. */
export function frameOf(area: Area, current: NavigationKey | null): Record<string, unknown> {
  const canManage = area.session.permissions.has(MANAGE_PERMISSION);
  return {
    frame: {
      merchantName: area.merchant.displayName,
      merchantUuid: area.merchantUuid,
      csrfToken: area.session.csrfToken,
      canManage,
      canSwitch: area.session.merchantUuids.length > 1,
      canManageWebhooks: area.session.permissions.has(WEBHOOK_PERMISSION),
      navigation: NAVIGATION.filter((item) => (!("manage" in item) || canManage) && (!("permission" in item) || area.session.permissions.has(item.permission))).map((item) => ({ ...item, current: item.key === current })),
    },
  };
}

/** Renders a page of the area, in its frame. */
export function renderAreaPage(ctx: Context, deps: AreaDeps, area: Area, template: string, current: NavigationKey | null, context: Record<string, unknown>, status = 200): void {
  renderPage(ctx, deps, template, { ...frameOf(area, current), ...context }, status);
}

/** Renders a refusal inside the area's frame: the status, a title and a message in plain words. */
export function renderAreaProblem(ctx: Context, deps: AreaDeps, area: Area, status: number, title: string, message: string, extra: Record<string, unknown> = {}): void {
  renderAreaPage(ctx, deps, area, "merchant/problem.njk", null, { status, title, message, ...extra }, status);
}

/** The page for a signed-in person who belongs to no merchant (a platform admin, say): 403, with a way to sign out. */
export function renderNotMember(ctx: Context, deps: Pick<AppDeps, "views">, csrfToken: string | null): void {
  renderPage(ctx, deps, "merchant/not-member.njk", { csrfToken }, 403);
}

type Gate = { area: Area } | { answered: true };

/**
 * The merchant and person a request acts for, once signed in (else 303 to the
 * sign-in page), a member of a merchant (else a page saying they are not), the
 * merchant chosen when there are several (else 303 to the choice). Answers the
 * request itself and returns `answered` when it must stop there.
 */
async function gate(deps: AreaDeps, ctx: Context): Promise<Gate> {
  const session = await currentSession(deps, ctx);
  if (!session) {
    seeOther(ctx, "/merchant/login");
    return { answered: true };
  }
  if (session.merchantUuids.length === 0) {
    renderNotMember(ctx, deps, session.csrfToken);
    return { answered: true };
  }
  if (!session.merchantUuid) {
    seeOther(ctx, "/merchant/choose");
    return { answered: true };
  }
  const { merchant } = await deps.merchants.getMerchant({ uuid: session.merchantUuid });
  if (!merchant) throw new Error("merchants answered without the merchant");
  return { area: { session, merchant, merchantUuid: session.merchantUuid } };
}

/** 403 page (in the frame) unless the person holds `permission`; true when they do. */
function permitted(ctx: Context, deps: AreaDeps, area: Area, permission: Permission): boolean {
  if (area.session.permissions.has(permission)) return true;
  const message =
    permission === MANAGE_PERMISSION
      ? "Your role lets you see checkouts but not create or disable them. Ask an administrator of your merchant account."
      : permission === WEBHOOK_PERMISSION
        ? "Your role does not let you see or manage this merchant's webhooks. Ask an administrator of your merchant account."
        : "Your account may not see this merchant's pages. Ask an administrator of your merchant account.";
  renderAreaProblem(ctx, deps, area, 403, "Not allowed", message);
  return false;
}

/** A page of the area (GET): the gate, then `permission` (viewing by default). Null when the request was already answered. */
export async function pageArea(deps: AreaDeps, ctx: Context, permission: Permission = VIEW_PERMISSION): Promise<Area | null> {
  const gated = await gate(deps, ctx);
  if ("answered" in gated) return null;
  return permitted(ctx, deps, gated.area, permission) ? gated.area : null;
}

/** The field of every form of the area naming the merchant the page was shown for. */
export const MERCHANT_FIELD = "merchant_uuid";

/**
 * A form of the area (POST): from this site, signed in (else 303 to the
 * sign-in page, changing nothing), with the session's CSRF token (else a 403
 * page), then the gate and `permission`, and, when the form names the merchant
 * its page was shown for (the area's own forms always do), for that merchant
 * (else a 409 page, changing nothing: the person was switched to another
 * merchant meanwhile, e.g. removed from that one). Null when the request was
 * already answered; otherwise the area and the form.
 */
export async function formArea(deps: AreaDeps, ctx: Context, permission: Permission): Promise<{ area: Area; form: URLSearchParams } | null> {
  requireSameOrigin(ctx, deps.publicUrl);
  const form = await readForm(ctx);
  const session = await currentSession(deps, ctx);
  if (!session) {
    seeOther(ctx, "/merchant/login");
    return null;
  }
  checkCsrf(form.get(CSRF_FIELD), session.csrfToken);
  const gated = await gate(deps, ctx);
  if ("answered" in gated) return null;
  if (!permitted(ctx, deps, gated.area, permission)) return null;
  const named = form.get(MERCHANT_FIELD);
  if (named !== null && named !== gated.area.merchantUuid) {
    renderAreaProblem(ctx, deps, gated.area, 409, "The merchant changed", `This form was for another merchant account than the one you now act for (${gated.area.merchant.displayName}). Nothing was changed; check the page and try again.`);
    return null;
  }
  return { area: gated.area, form };
}

/** The merchant cookie for `merchantUuid`, living as long as the session may. */
export function merchantCookie(merchantUuid: string, absoluteExpiresAt: Date | undefined, now: Date): string {
  const maxAgeS = absoluteExpiresAt ? (absoluteExpiresAt.getTime() - now.getTime()) / 1000 : 0;
  return cookie(MERCHANT_COOKIE, merchantUuid, maxAgeS);
}

/** 404 page for a checkout (or path) that is not the merchant's. */
export function checkoutNotFound(): ApiError {
  return new ApiError("NOT_FOUND", "There is no such checkout in your merchant account.");
}

/** The merchant's status as the contract names it. */
export function merchantStatusName(status: merchantsV1.MerchantStatus): string {
  return MERCHANT_STATUS.nameOf(status) ?? "unknown";
}

/** An instant for people and for `<time datetime>`: "2026-11-25 14:03 UTC" and its ISO form. */
export interface TimeView {
  iso: string;
  text: string;
}

export function timeView(value: Parameters<typeof fromTimestamp>[0] | Date): TimeView | null {
  const date = value instanceof Date ? value : fromTimestamp(value);
  if (!date || Number.isNaN(date.getTime())) return null;
  const iso = date.toISOString();
  return { iso, text: `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` };
}
