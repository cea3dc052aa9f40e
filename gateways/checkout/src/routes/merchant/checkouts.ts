/**
 * The merchant's checkouts: the history (paginated), one checkout's detail,
 * the form that creates one (the server decides readiness; the link is shown
 * once), and disabling an open, unused one. Nothing here starts a checkout or
 * allocates an address.
 */
import type Router from "@koa/router";
import type { Context } from "koa";
import { charLength, displayTextProblem, MAX_REFERENCE_LENGTH, strictRouter } from "@payin/http";
import { isUuidAnyCase } from "@payin/ids";
import { isCountryCode } from "@payin/ids/countries";
import { AmountError, ASSETS, canonicalAmount, isAsset, isRail, ROUTED_PAIRS } from "@payin/money";
import type { allocationV1 } from "@payin/proto";
import { Code, ConnectError, reasonOf } from "@payin/rpc";
import type { AppDeps } from "../../deps.js";
import { RateLimited } from "../../http/rate-limit.js";
import { pairLabel, pairReadinessView, type PairReadinessView } from "../../presentation/readiness-reasons.js";
import { createCheckout } from "@payin/operations";
import { formArea, MANAGE_PERMISSION, pageArea, renderAreaPage, renderAreaProblem, seeOther, type Area } from "./area.js";
import { checkoutDetail, checkoutRows, rowMerchant } from "./checkout-rows.js";

export type CheckoutsDeps = Pick<AppDeps, "identity" | "merchants" | "allocation" | "payins" | "views" | "publicUrl" | "now" | "rateLimits">;

/** Checkouts per page of the history. */
export const PAGE_SIZE = 20;
/** The highest page number taken (the offset stays far inside payins' range). */
const MAX_PAGE = 1_000_000;
export const MAX_DESCRIPTION_LENGTH = 500;

/** What the merchant typed into the form, kept as typed so a refused form shows it again. */
export interface CheckoutFormValues {
  reference: string;
  description: string;
  amount: string;
  jurisdiction: string;
  /** The chosen pairs as the form's values, `asset/rail`. */
  pairs: string[];
}

export type CheckoutFormErrors = Partial<Record<keyof CheckoutFormValues, string>>;

const EMPTY_FORM: CheckoutFormValues = { reference: "", description: "", amount: "", jurisdiction: "", pairs: [] };

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** The form's words for a text refused by the rule of what payers read (displayTextProblem). */
const HIDDEN_CHARACTERS = "Remove the invisible or text-direction characters: the payer would not see the text as you wrote it.";

/**
 * The form's values and what is wrong with them, field by field: the API's
 * rules (amount as payins takes it; reference ≤ 255; description ≤ 500 and
 * required here, since the payer reads it; a country code; at least one pair).
 * A pair is any asset with any rail: whether the platform serves it is
 * readiness's decision (asset_not_configured), not the form's.
 */
export function readCheckoutForm(form: URLSearchParams): { values: CheckoutFormValues; errors: CheckoutFormErrors } {
  const values: CheckoutFormValues = {
    reference: (form.get("reference") ?? "").trim(),
    description: (form.get("description") ?? "").trim(),
    amount: (form.get("amount") ?? "").trim(),
    jurisdiction: (form.get("jurisdiction") ?? "").trim().toUpperCase(),
    pairs: [...new Set(form.getAll("pair"))],
  };
  const errors: CheckoutFormErrors = {};
  if (charLength(values.reference) > MAX_REFERENCE_LENGTH) errors.reference = `The reference may be at most ${MAX_REFERENCE_LENGTH} characters.`;
  else if (displayTextProblem(values.reference)) errors.reference = HIDDEN_CHARACTERS;
  if (!values.description) errors.description = "Enter a description: the payer sees it on the payment page.";
  else if (charLength(values.description) > MAX_DESCRIPTION_LENGTH) errors.description = `The description may be at most ${MAX_DESCRIPTION_LENGTH} characters.`;
  else if (displayTextProblem(values.description)) errors.description = HIDDEN_CHARACTERS;
  if (!values.amount) errors.amount = "Enter the amount, for example 10.50.";
  else {
    try {
      canonicalAmount(values.amount);
    } catch (error) {
      if (!(error instanceof AmountError)) throw error;
      errors.amount = `${capitalised(error.message)}.`;
    }
  }
  if (!/^[A-Z]{2}$/.test(values.jurisdiction) || !isCountryCode(values.jurisdiction)) {
    errors.jurisdiction = "Enter the two-letter code of the country where the sale takes place, for example DE or US.";
  }
  if (values.pairs.length === 0) errors.pairs = "Choose at least one token and network the payer may pay with.";
  else if (values.pairs.some((value) => parsePair(value) === null)) errors.pairs = "Choose among the tokens and networks offered.";
  return { values, errors };
}

function parsePair(value: string): { asset: string; rail: string } | null {
  const [asset, rail, ...rest] = value.split("/");
  return asset && rail && rest.length === 0 && isAsset(asset) && isRail(rail) ? { asset, rail } : null;
}

/** The page number of `?page=`: 1 when absent; null when it is not a whole number from 1. */
export function pageNumber(raw: unknown): number | null {
  if (raw === undefined) return 1;
  if (typeof raw !== "string" || !/^[1-9][0-9]{0,6}$/.test(raw)) return null;
  const page = Number(raw);
  return page <= MAX_PAGE ? page : null;
}

/** Where each field's payins message belongs, by the field it names first. */
function fieldOfMessage(message: string): keyof CheckoutFormValues | null {
  const match = /^(reference|description|amount|jurisdiction|pair)/.exec(message);
  if (!match) return null;
  return match[1] === "pair" ? "pairs" : (match[1] as keyof CheckoutFormValues);
}

interface FormState {
  values: CheckoutFormValues;
  errors?: CheckoutFormErrors;
  /** A message for the whole form (payins' refusal of a field). */
  formError?: string | null;
  /** The readiness of the chosen pairs, when creation was refused for it. */
  refusal?: PairReadinessView[] | null;
}

/** The pairs the form offers (those routing serves), each with its readiness now, as a hint: the server decides again on submit. */
async function pairOptions(deps: CheckoutsDeps, area: Area, chosen: readonly string[]) {
  const { pairs } = await deps.allocation.getReadiness({ merchantUuid: area.merchantUuid, pairs: ROUTED_PAIRS.map(({ asset, rail }) => ({ asset, rail })) });
  const readiness = new Map(pairs.map((pair) => [`${pair.asset}/${pair.rail}`, pairReadinessView(pair)]));
  return ROUTED_PAIRS.map(({ asset, rail }) => {
    const value = `${asset}/${rail}`;
    return { value, label: pairLabel(asset, rail), ready: readiness.get(value)?.ready ?? false, checked: chosen.includes(value) };
  });
}

async function renderForm(ctx: Context, deps: CheckoutsDeps, area: Area, state: FormState, status: number): Promise<void> {
  const errors = state.errors ?? {};
  renderAreaPage(
    ctx,
    deps,
    area,
    "merchant/new-checkout.njk",
    "new",
    {
      values: state.values,
      errors,
      errorCount: Object.keys(errors).length,
      formError: state.formError ?? null,
      refusal: state.refusal ?? null,
      options: await pairOptions(deps, area, state.values.pairs),
      limits: { reference: MAX_REFERENCE_LENGTH, description: MAX_DESCRIPTION_LENGTH },
      assets: ASSETS,
    },
    status,
  );
}

const NOTICES: Readonly<Record<string, string>> = {
  disabled: "The checkout was disabled. Its link no longer starts a payment.",
};

function isReason(error: unknown, reason: string): boolean {
  return error instanceof ConnectError && reasonOf(error) === reason;
}

export function checkoutRoutes(deps: CheckoutsDeps): Router {
  const router = strictRouter();

  router.get("/merchant/checkouts", async (ctx) => {
    const area = await pageArea(deps, ctx);
    if (!area) return;
    const page = pageNumber(ctx.query.page);
    if (page === null) return renderAreaProblem(ctx, deps, area, 400, "No such page", "The page number must be a whole number from 1.");
    const list = await deps.payins.listCheckoutSessions({ merchantUuid: area.merchantUuid, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
    const total = Number(list.total);
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    const notice = typeof ctx.query.notice === "string" ? (NOTICES[ctx.query.notice] ?? null) : null;
    renderAreaPage(ctx, deps, area, "merchant/checkouts.njk", "checkouts", {
      rows: await checkoutRows(deps, rowMerchant(area), list.sessions),
      total,
      page,
      pages,
      first: total === 0 ? 0 : Math.min(total, (page - 1) * PAGE_SIZE + 1),
      last: Math.min(total, page * PAGE_SIZE),
      previous: page > 1 ? Math.min(page - 1, pages) : null,
      next: page < pages ? page + 1 : null,
      notice,
    });
  });

  // Before /:uuid, which would take "new" for a uuid.
  router.get("/merchant/checkouts/new", async (ctx) => {
    const area = await pageArea(deps, ctx, MANAGE_PERMISSION);
    if (!area) return;
    await renderForm(ctx, deps, area, { values: EMPTY_FORM }, 200);
  });

  router.post("/merchant/checkouts/new", async (ctx) => {
    const taken = await formArea(deps, ctx, MANAGE_PERMISSION);
    if (!taken) return;
    const { area, form } = taken;
    try {
      await deps.rateLimits.checkoutCreation(area.session.identityUuid);
    } catch (error) {
      if (!(error instanceof RateLimited)) throw error;
      ctx.set("retry-after", String(error.retryAfterS));
      const message = "You have created many checkouts in a short time. Nothing was created.";
      return renderAreaProblem(ctx, deps, area, 429, "Too many checkouts at once", message, { retryAfter: error.retryAfterS });
    }
    const { values, errors } = readCheckoutForm(form);
    if (Object.keys(errors).length > 0) return renderForm(ctx, deps, area, { values, errors }, 400);
    let outcome: Awaited<ReturnType<typeof createCheckout>>;
    try {
      outcome = await createCheckout(deps, {
        merchantUuid: area.merchantUuid,
        reference: values.reference || undefined,
        description: values.description,
        amount: values.amount,
        pairs: values.pairs.map((value) => parsePair(value)!),
        jurisdiction: values.jurisdiction,
      });
    } catch (error) {
      if (!(error instanceof ConnectError && error.code === Code.InvalidArgument)) throw error;
      // payins' own rules (the same as the form's, but payins has the last word): its message, by its field.
      const message = `${capitalised(error.rawMessage)}.`;
      const field = fieldOfMessage(error.rawMessage);
      return renderForm(ctx, deps, area, { values, errors: field ? { [field]: message } : {}, formError: field ? null : message }, 400);
    }
    if (!outcome.created) {
      const refusal = outcome.pairs.map((pair: allocationV1.PairReadiness) => pairReadinessView(pair));
      return renderForm(ctx, deps, area, { values, refusal }, 409);
    }
    const [row] = await checkoutRows(deps, rowMerchant(area), [outcome.session]);
    renderAreaPage(ctx, deps, area, "merchant/created.njk", "new", { link: outcome.link, checkout: row }, 201);
  });

  router.get("/merchant/checkouts/:uuid", async (ctx) => {
    const area = await pageArea(deps, ctx);
    if (!area) return;
    const uuid = ctx.params.uuid ?? "";
    const notFound = () => renderAreaProblem(ctx, deps, area, 404, "Checkout not found", "There is no such checkout in your merchant account.");
    if (!isUuidAnyCase(uuid)) return notFound();
    try {
      const checkout = await checkoutDetail(deps, rowMerchant(area), uuid.toLowerCase());
      renderAreaPage(ctx, deps, area, "merchant/checkout.njk", "checkouts", { checkout });
    } catch (error) {
      if (isReason(error, "CHECKOUT_NOT_FOUND")) return notFound();
      throw error;
    }
  });

  router.post("/merchant/checkouts/:uuid/disable", async (ctx) => {
    const taken = await formArea(deps, ctx, MANAGE_PERMISSION);
    if (!taken) return;
    const { area } = taken;
    const uuid = ctx.params.uuid ?? "";
    const notFound = () => renderAreaProblem(ctx, deps, area, 404, "Checkout not found", "There is no such checkout in your merchant account.");
    if (!isUuidAnyCase(uuid)) return notFound();
    try {
      await deps.payins.disableCheckoutSession({ merchantUuid: area.merchantUuid, checkoutUuid: uuid.toLowerCase() });
    } catch (error) {
      if (isReason(error, "CHECKOUT_NOT_FOUND")) return notFound();
      if (isReason(error, "CHECKOUT_NOT_DISABLABLE")) {
        return renderAreaProblem(ctx, deps, area, 409, "This checkout cannot be disabled", "This checkout has been used; it cannot be disabled. A payer has started it, so its pay-in stays as it is.", {
          backHref: `/merchant/checkouts/${uuid.toLowerCase()}`,
        });
      }
      throw error;
    }
    seeOther(ctx, "/merchant/checkouts?notice=disabled");
  });

  return router;
}
