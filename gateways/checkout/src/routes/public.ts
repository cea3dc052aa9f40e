/**
 * The payer's pages: GET /c/:token (the page; creates nothing), POST
 * /c/:token/start (the only path that creates a pay-in intent) and GET
 * /c/:token/status (the narrow JSON the page polls). The token in the path is
 * the only key: every route counts its rate limits first, then answers a
 * malformed or unknown token with the same 404, and never logs it.
 */
import { createHash } from "node:crypto";
import type Router from "@koa/router";
import type { Context } from "koa";
import { LRUCache } from "lru-cache";
import { ApiError, PUBLIC_ERRORS, strictRouter } from "@payin/http";
import { isAsset, isRail } from "@payin/money";
import { minimumAmount, payableTerms } from "@payin/rails";
import { CHECKOUT_STATE, merchantsV1, PAY_IN_STATUS, payinsV1 } from "@payin/proto";
import { coalesce, ConnectError, fromTimestamp, reasonOf } from "@payin/rpc";
import type { AppDeps } from "../deps.js";
import { readForm, requireSameOrigin } from "../http/form.js";
import type { PublicAction } from "../http/rate-limit.js";
import type { Evidence } from "../presentation/evidence.js";
import { payerPage, qrChoice, statusPayload, type CheckoutSnapshot, type IntentSnapshot, type NetworkTerms } from "../presentation/payer-view.js";
import { parsePairValue } from "../presentation/payment-terms.js";
import type { CheckoutPair } from "../presentation/presentation-state.js";
import { qrSvg } from "../presentation/qr.js";
import { badPairRefusal, startRefusal, type StartRefusal } from "../presentation/start-refusal.js";
import { evidenceOf } from "./evidence-of.js";

/** A link's token: 32 random bytes in base64url. Anything else is answered as an unknown token. */
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/** What a token is counted under: its hash, never the token itself. */
function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

/**
 * How long a start may take: longer than payins waits for a concurrent
 * start's create (15 s), so that payins' own answer (the one intent, or
 * IDEMPOTENCY_KEY_IN_USE) reaches the payer rather than a timeout of ours.
 */
const START_TIMEOUT_MS = 20_000;

/** How long a merchant's display name and status are reused by the status poll (not a record of truth). */
const MERCHANT_TTL_MS = 5_000;
const MERCHANT_CACHE_SIZE = 10_000;
/** QR codes kept drawn (the least recently used is dropped first). */
const QR_CACHE_SIZE = 2_000;
/** Most tokens payins reads in one BatchGetCheckoutsByToken call. */
const MAX_TOKENS_PER_CALL = 100;

/** The one answer to every token that leads nowhere: it says nothing about why. */
const notFound = () => new ApiError("NOT_FOUND", "There is no payment at this address. Check that you opened the whole link you were given.");

interface MerchantFacts {
  displayName: string;
  active: boolean;
}

/** A checkout as read for one request: the snapshot the page and the poll are drawn from, and what else the page needs. */
interface ReadCheckout {
  snapshot: CheckoutSnapshot;
  merchantUuid: string;
  intentUuid: string | null;
}

export function publicRoutes(deps: AppDeps): Router {
  const router = strictRouter();
  const merchants = merchantLookup(deps);

  const readPolled = coalesce(
    async (tokens: string[]) => (await deps.payins.batchGetCheckoutsByToken({ tokens })).results,
    { maxBatch: MAX_TOKENS_PER_CALL },
  );

  async function readOne(token: string): Promise<payinsV1.CheckoutLookupResult | payinsV1.GetCheckoutByTokenResponse> {
    try {
      return await deps.payins.getCheckoutByToken({ token });
    } catch (error) {
      if (error instanceof ConnectError && reasonOf(error) === "CHECKOUT_NOT_FOUND") throw notFound();
      throw error;
    }
  }

  // A payer's page reloads every few seconds and its codes rarely change (the
  // payment URI only when part of the amount arrives: it then asks for what is
  // left): each code is drawn once per text and label (drawing is most of a page's cost).
  const drawnQr = new LRUCache<string, Promise<string>>({ max: QR_CACHE_SIZE });
  function drawQr(text: string, label: string): Promise<string> {
    const key = `${label}\n${text}`;
    let drawn = drawnQr.get(key);
    if (!drawn) {
      drawn = qrSvg(text, label);
      const kept = drawn;
      kept.catch(() => {
        if (drawnQr.peek(key) === kept) drawnQr.delete(key);
      });
      drawnQr.set(key, kept);
    }
    return drawn;
  }

  /** Counts the request against the action's limits, then answers a malformed token as an unknown one. */
  async function admit(ctx: Context, action: PublicAction): Promise<string> {
    const token = String(ctx.params.token ?? "");
    await deps.rateLimits.public(action, deps.clientAddress(ctx.req), tokenDigest(token));
    if (!TOKEN_FORMAT.test(token)) throw notFound();
    return token;
  }

  /** The checkout of a token, its merchant and, while it can still be started, its pairs' readiness in its jurisdiction (what a start decides again). */
  async function readCheckout(token: string, fresh: boolean): Promise<ReadCheckout> {
    // The poll's reads of one turn travel together, as one payins call and one statement.
    const answer = fresh ? await readOne(token) : await readPolled(token);
    const session = answer.session;
    const state = session ? CHECKOUT_STATE.nameOf(session.state) : undefined;
    // A batch read answers an unknown or malformed token with no session.
    if (!session) throw notFound();
    if (!state) throw new Error("payins answered a checkout without a state");
    const merchant = await (fresh ? merchants.fresh : merchants.cached)(session.merchantUuid);
    const intent = answer.intent ? intentSnapshot(answer.intent) : null;
    const pairs = session.pairs.flatMap(({ asset, rail }): CheckoutPair[] => (isAsset(asset) && isRail(rail) ? [{ asset, rail }] : []));
    let ready = new Set<string>();
    if (!intent && state === "open" && merchant.active) {
      const readiness = await deps.allocation.getReadiness({ merchantUuid: session.merchantUuid, pairs, jurisdiction: session.jurisdiction });
      ready = new Set(readiness.pairs.filter((p) => p.ready).map((p) => `${p.asset}/${p.rail}`));
    }
    return {
      snapshot: {
        session: {
          state,
          pairs,
          amount: session.amount,
          description: session.description ?? null,
          reference: session.reference ?? null,
          paymentWindowS: session.paymentWindowSeconds,
        },
        intent,
        merchant,
        pairReady: (pair) => ready.has(`${pair.asset}/${pair.rail}`),
        now: deps.now(),
      },
      merchantUuid: session.merchantUuid,
      intentUuid: answer.intent?.intentUuid ?? null,
    };
  }

  /** The transfers seen for the intent (the page only: the poll never reads them). */
  async function readEvidence(merchantUuid: string, intentUuid: string): Promise<Evidence> {
    return evidenceOf(await deps.payins.listPayInTransfers({ merchantUuid, intentUuid }));
  }

  function networkTerms(rail: string): NetworkTerms | null {
    if (!isRail(rail)) return null;
    const config = deps.rails.rails[rail];
    return { chainId: config.chainId, contract: config.token.contract, decimals: config.token.decimals, minimum: minimumAmount(payableTerms(config)) };
  }

  router.get("/c/:token", async (ctx) => {
    const token = await admit(ctx, "page");
    const { snapshot, merchantUuid, intentUuid } = await readCheckout(token, true);
    const evidence = snapshot.intent && intentUuid ? await readEvidence(merchantUuid, intentUuid) : null;
    const qr = typeof ctx.query.qr === "string" ? ctx.query.qr : null;
    const page = payerPage({ ...snapshot, token, network: snapshot.intent ? networkTerms(snapshot.intent.rail) : null, evidence, qr: qrChoice(qr) });
    const codes =
      page.qr && page.payment?.eip681
        ? { eip681: await drawQr(page.payment.eip681, page.qr.eip681Label), address: await drawQr(page.payment.address, page.qr.addressLabel) }
        : null;
    ctx.type = "html";
    ctx.body = deps.views.render(`payer/${page.state.replaceAll("_", "-")}.njk`, { page, codes });
  });

  router.post("/c/:token/start", async (ctx) => {
    requireSameOrigin(ctx, deps.publicUrl);
    // The address's count first; the link's only for what passed it. An invalid
    // start (malformed token, unreadable form, no single pair) is charged to the
    // link apart from real starts, so it never spends their budget.
    const token = String(ctx.params.token ?? "");
    const digest = tokenDigest(token);
    await deps.rateLimits.perAddress("start", deps.clientAddress(ctx.req));
    const invalid = () => deps.rateLimits.perLink("start-invalid", digest);
    if (!TOKEN_FORMAT.test(token)) {
      await invalid();
      throw notFound();
    }
    let pair: ReturnType<typeof parsePairValue>;
    try {
      const form = await readForm(ctx);
      // Two methods at once is no choice: refused rather than one of them guessed.
      pair = form.getAll("pair").length > 1 ? null : parsePairValue(form.get("pair"));
    } catch (error) {
      await invalid();
      throw error;
    }
    if (pair === null) {
      await invalid();
      return refuse(ctx, token, badPairRefusal());
    }
    await deps.rateLimits.perLink("start", digest);
    try {
      await deps.payins.startCheckout({ token, pair }, { timeoutMs: START_TIMEOUT_MS });
    } catch (error) {
      if (!(error instanceof ConnectError)) throw error;
      const reason = reasonOf(error);
      if (reason === "CHECKOUT_NOT_FOUND") throw notFound();
      const refusal = startRefusal(reason);
      if (!refusal) throw error;
      return refuse(ctx, token, refusal);
    }
    ctx.redirect(`/c/${token}`);
    ctx.status = 303;
  });

  router.get("/c/:token/status", async (ctx) => {
    const token = await admit(ctx, "status");
    const { snapshot } = await readCheckout(token, false);
    ctx.body = statusPayload(snapshot);
  });

  /** A refused start: a page with the refusal's status, in words for the payer, and the way back. */
  function refuse(ctx: Context, token: string, refusal: StartRefusal): void {
    ctx.status = PUBLIC_ERRORS[refusal.code];
    ctx.type = "html";
    ctx.body = deps.views.render("payer/refused.njk", { ...refusal, backHref: `/c/${token}`, requestId: ctx.state.requestId });
  }

  return router;
}

function intentSnapshot(intent: payinsV1.PayInIntent): IntentSnapshot {
  const status = PAY_IN_STATUS.nameOf(intent.status);
  const expiresAt = fromTimestamp(intent.expiresAt);
  if (!status || !expiresAt) throw new Error("payins answered an intent without a status or deadline");
  return {
    status,
    asset: intent.asset,
    rail: intent.rail,
    expectedAmount: intent.expectedAmount,
    address: intent.address ?? null,
    expiresAt,
    updatedAt: fromTimestamp(intent.updatedAt) ?? null,
  };
}

/**
 * A merchant's display name and status. The page reads them fresh and leaves
 * them for the status poll, which reuses them for up to 5 s (the poll is hot;
 * a name or status change shows within that time). Concurrent lookups of one
 * merchant share one call; a failed lookup is not kept.
 */
function merchantLookup(deps: Pick<AppDeps, "merchants">) {
  const entries = new LRUCache<string, Promise<MerchantFacts>>({ max: MERCHANT_CACHE_SIZE, ttl: MERCHANT_TTL_MS });
  const load = (uuid: string): Promise<MerchantFacts> => {
    const facts = deps.merchants.getMerchant({ uuid }).then(({ merchant }) => ({
      displayName: merchant?.displayName ?? "",
      active: merchant?.status === merchantsV1.MerchantStatus.ACTIVE,
    }));
    entries.set(uuid, facts);
    facts.catch(() => {
      if (entries.peek(uuid) === facts) entries.delete(uuid);
    });
    return facts;
  };
  return {
    fresh: load,
    cached: (uuid: string): Promise<MerchantFacts> => entries.get(uuid) ?? load(uuid),
  };
}
