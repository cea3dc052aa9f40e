import { PAY_IN_STATUS, PAY_IN_STATUS_NAMES, payInStatusName, payinsV1 } from "@payin/proto";
import { intentReadView, paymentFields, transferView } from "@payin/events";
import { coalesce, ConnectError, connectErrorOfItem, isoFromTimestamp, reasonOf, toTimestamp } from "@payin/rpc";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Context } from "koa";
import { ApiError, idempotencyKeyProblem, listPage, MAX_IDEMPOTENCY_KEY_LENGTH, lowerCaseUuidParams, PAGE_PARAMETERS, pagination, readJsonObject, readQuery, rpcOffset, strictRouter, validationError, type ListPage } from "@payin/http";
import { isAsset } from "@payin/money";
import type { Permission } from "@payin/permissions";
import type { Principal } from "../auth/authenticator.js";
import type { AppDeps } from "../deps.js";
import { authoriseForMerchant } from "../auth/merchant-access.js";
import { parseDateTime } from "./date-time.js";

const { PayInStatus } = payinsV1;

const CREATE_FIELDS = ["asset", "amount", "jurisdiction", "expires_at", "reference"];
const REQUIRED_FIELDS = ["asset", "amount", "jurisdiction", "expires_at"];

/** Create response: exactly the contract's fields (docs/api.md). */
export function createView(i: payinsV1.PayInIntent) {
  return {
    intent_uuid: i.intentUuid,
    ...paymentFields(i),
    allocation_reference: i.allocationReference ?? null,
    expires_at: isoFromTimestamp(i.expiresAt),
  };
}

/** Read response: the full representation (@payin/events: events carry the same). */
export const readView = intentReadView;

/** List item: no address, merchant_uuid or updated_at. */
export function listItemView(i: payinsV1.PayInIntent) {
  return {
    intent_uuid: i.intentUuid,
    status: payInStatusName(i.status),
    asset: i.asset,
    rail: i.rail,
    expected_amount: i.expectedAmount,
    reference: i.reference ?? null,
    created_at: isoFromTimestamp(i.createdAt),
    expires_at: isoFromTimestamp(i.expiresAt),
  };
}

export { transferView };

/**
 * Transfers response: the intent's terms, what counts so far, what came after
 * it was paid (to give back), how many transfers are dust, and a page of them.
 */
export function transfersView(intentUuid: string, res: payinsV1.ListPayInTransfersResponse, page: ListPage) {
  return {
    intent_uuid: intentUuid,
    asset: res.asset,
    rail: res.rail,
    expected_amount: res.expectedAmount,
    received_amount: res.receivedAmount,
    pending_amount: res.pendingAmount,
    after_paid_amount: res.afterPaidAmount,
    // Counted over every transfer, like the amounts: spam is counted, not listed beyond the page.
    dust_count: Number(res.dustCount),
    // The page payins read (in SQL), oldest block first.
    data: res.transfers.map(transferView),
    pagination: pagination(res.total, page),
  };
}

/** The read's 404: a missing intent, a malformed uuid, another merchant's intent. */
const intentNotFound = () => new ApiError("PAY_IN_INTENT_NOT_FOUND", "pay-in intent not found");

/** Checks the create body's shape and types; value rules are the payins service's. */
function parseCreateBody(body: Record<string, unknown>) {
  for (const field of Object.keys(body)) {
    if (!CREATE_FIELDS.includes(field)) {
      const hint = field === "rail" ? " (routing chooses the rail)" : field === "merchant_reference" ? " (the correlation field is reference)" : "";
      throw validationError(`unknown field "${field}"${hint}; allowed: ${CREATE_FIELDS.join(", ")}`);
    }
  }
  for (const field of REQUIRED_FIELDS) {
    if (body[field] === undefined || body[field] === null) throw validationError(`${field} is required`);
    if (typeof body[field] !== "string") throw validationError(`${field} must be a string`);
  }
  if (body.reference !== undefined && body.reference !== null && typeof body.reference !== "string") {
    throw validationError("reference must be a string");
  }
  const expiresAt = parseDateTime(body.expires_at as string);
  if (!expiresAt) throw validationError("expires_at must be an RFC 3339 date-time in UTC, e.g. 2030-01-01T00:00:00Z");
  return {
    asset: body.asset as string,
    amount: body.amount as string,
    jurisdiction: body.jurisdiction as string,
    expiresAt,
    reference: (body.reference as string | null | undefined) ?? undefined,
  };
}

function idempotencyKey(ctx: Context): string {
  // Node joins repeated headers with ", ": two keys would pass for one.
  if ((ctx.req.headersDistinct["idempotency-key"]?.length ?? 0) > 1) {
    throw new ApiError("IDEMPOTENCY_KEY_INVALID", "send the Idempotency-Key header once");
  }
  // The header's syntax is checked before the body is read, by payins' rule; payins decides the rest.
  const key = ctx.get("idempotency-key");
  const problem = idempotencyKeyProblem(key);
  if (problem === "missing") throw new ApiError("IDEMPOTENCY_KEY_INVALID", `the Idempotency-Key header is required (1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters)`);
  if (problem === "too_long") throw new ApiError("IDEMPOTENCY_KEY_INVALID", `the Idempotency-Key header must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  return key;
}

type PayInDeps = Pick<AppDeps, "auth" | "payins" | "merchants">;

/** Authorises the request for the path merchant (see auth/merchant-access.ts). */
function authorise(deps: PayInDeps, ctx: Context, permission: Permission): Promise<Principal> {
  return authoriseForMerchant(deps, ctx, ctx.params.merchant_uuid!, permission);
}

/**
 * Most reads, and most creates, sent to payins in one call: the ones arriving
 * together are coalesced into one BatchGetPayInIntents or BatchCreatePayInIntents
 * call (docs/decisions.md, "Coalesced calls").
 */
const MAX_READS_PER_CALL = 100;
const MAX_CREATES_PER_CALL = 100;
/**
 * Create batches on their way through payins at once. A create passes three
 * commits and two more hops; with a bound, creates arriving meanwhile wait and
 * go in the next, so under load batches are larger and the tail shorter than
 * with every turn's handful sent at once (max latency 55–83 ms against 88–228 ms
 * in the bench's create runs). Three with CREATE_LINGER_MS beat two with or
 * without it in alternating bench runs (docs/decisions.md, "Coalesced calls").
 */
const CREATE_BATCHES_IN_FLIGHT = 3;
/**
 * Milliseconds a create batch waits for more creates while another batch is
 * under way. Under load the creates that follow a returned batch arrive over a
 * millisecond or two; sent at once, the first of them would leave almost alone
 * and hold a place for a whole round trip while the rest queue behind it (in the
 * bench, without it, 42% of batches carried under ten creates). A create
 * arriving while nothing is under way is sent at once.
 */
const CREATE_LINGER_MS = 3;

type CreateRequest = MessageInitShape<typeof payinsV1.CreatePayInIntentRequestSchema>;

/** The merchant pay-in operations under /api/v1: create, list, read, and the transfers seen for an intent. */
export function payInIntentRoutes(deps: PayInDeps) {
  const readIntent = coalesce(
    async (lookups: { merchantUuid: string; intentUuid: string }[]) => (await deps.payins.batchGetPayInIntents({ lookups })).results.map((r) => r.intent),
    { maxBatch: MAX_READS_PER_CALL },
  );
  const createIntent = coalesce(
    async (requests: CreateRequest[]) => (await deps.payins.batchCreatePayInIntents({ requests })).results,
    { maxBatch: MAX_CREATES_PER_CALL, inFlight: CREATE_BATCHES_IN_FLIGHT, linger: CREATE_LINGER_MS },
  );
  // The collection's own path has no trailing slash: strict routes under a prefix
  // ending in it would need one (strictRouter).
  const router = strictRouter({ prefix: "/api/v1/merchants/:merchant_uuid" });
  lowerCaseUuidParams(router, ["merchant_uuid", "intent_uuid"]);

  router.post("/pay-in-intents", async (ctx) => {
    await authorise(deps, ctx, "merchant.payin.create");
    readQuery(ctx, []);
    const key = idempotencyKey(ctx);
    const body = parseCreateBody(await readJsonObject(ctx));
    const result = await createIntent({
      merchantUuid: ctx.params.merchant_uuid!,
      idempotencyKey: key,
      asset: body.asset,
      amount: body.amount,
      jurisdiction: body.jurisdiction,
      expiresAt: toTimestamp(body.expiresAt),
      reference: body.reference,
    });
    if (result.outcome.case === "error") throw connectErrorOfItem(result.outcome.value);
    if (result.outcome.case !== "created") throw new Error("payins answered a create with no outcome");
    const res = result.outcome.value;
    ctx.status = 201;
    ctx.set("location", `/api/v1/merchants/${ctx.params.merchant_uuid!}/pay-in-intents/${res.intent!.intentUuid}`);
    if (res.replayed) ctx.set("idempotent-replayed", "true");
    ctx.body = createView(res.intent!);
  });

  router.get("/pay-in-intents", async (ctx) => {
    await authorise(deps, ctx, "merchant.payin.read");
    const query = readQuery(ctx, [...PAGE_PARAMETERS, "status", "asset"]);
    const page = listPage(query);
    if (query.status !== undefined && !PAY_IN_STATUS.isName(query.status)) {
      throw validationError(`status must be one of: ${PAY_IN_STATUS_NAMES.join(", ")}`);
    }
    if (query.asset !== undefined && !isAsset(query.asset)) {
      throw validationError("asset must be one of: usdt, usdc");
    }
    const res = await deps.payins.listPayInIntents({
      merchantUuid: ctx.params.merchant_uuid!,
      limit: page.limit,
      offset: rpcOffset(page.offset),
      status: query.status ? PAY_IN_STATUS.byName[query.status] : PayInStatus.UNSPECIFIED,
      asset: query.asset ?? "",
    });
    ctx.body = { data: res.intents.map(listItemView), pagination: pagination(res.total, page) };
  });

  router.get("/pay-in-intents/:intent_uuid", async (ctx) => {
    await authorise(deps, ctx, "merchant.payin.read");
    readQuery(ctx, []);
    const intent = await readIntent({ merchantUuid: ctx.params.merchant_uuid!, intentUuid: ctx.params.intent_uuid! });
    if (!intent) throw intentNotFound();
    ctx.body = readView(intent);
  });

  // The evidence of an intent: the same access and 404 as its read.
  router.get("/pay-in-intents/:intent_uuid/transfers", async (ctx) => {
    await authorise(deps, ctx, "merchant.payin.read");
    const page = listPage(readQuery(ctx, PAGE_PARAMETERS));
    const intentUuid = ctx.params.intent_uuid!;
    const res = await deps.payins.listPayInTransfers({ merchantUuid: ctx.params.merchant_uuid!, intentUuid, limit: page.limit, offset: rpcOffset(page.offset) }).catch((error: unknown) => {
      throw error instanceof ConnectError && reasonOf(error) === "PAY_IN_INTENT_NOT_FOUND" ? intentNotFound() : error;
    });
    ctx.body = transfersView(intentUuid, res, page);
  });

  return router;
}
