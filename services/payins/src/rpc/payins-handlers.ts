import type { ServiceImpl } from "@connectrpc/connect";
import { systemClock, type Clock, type Database } from "@payin/db";
import type { Logger } from "@payin/logging";
import { uuidv7, isUuid } from "@payin/ids";
import { payInStatusName, payinsV1 } from "@payin/proto";
import { fromTimestamp, settleBatch, toTimestamp } from "@payin/rpc";
import { DomainError } from "@payin/errors";
import { PayinsReason } from "../domain/reasons.js";
import { observationFromPb, payInIntentToPb, transfersToPb } from "./mappers.js";
import { recordObservations } from "../domain/record-observations.js";
import { observationStore } from "../store/observation-store.js";
import { reasonCodes } from "./reason-codes.js";
import { createPayInIntent, type AddressAllocator, type MerchantDirectory } from "../domain/create-pay-in-intent.js";
import { intentNotFound, type PayInIntent, type RailMinimums } from "../domain/pay-in-intent.js";
import { getPayInIntent, getPayInIntents, listPayInIntents } from "../domain/read-pay-in-intents.js";
import { listPayInTransfers } from "../domain/list-transfers.js";
import { PayInRepository } from "../store/pay-in-repository.js";
import { CheckoutRepository } from "../store/checkout-repository.js";
import {
  createCheckoutSession,
  DEFAULT_PAYMENT_WINDOW_S,
  disableCheckoutSession,
  getCheckoutSession,
  listCheckoutSessions,
} from "../domain/checkout-session.js";
import { getCheckoutByToken, getCheckoutsByToken, startCheckout } from "../domain/start-checkout.js";
import { checkoutSessionToPb } from "./mappers.js";

export interface PayinsDeps {
  /** The payins schema (openDatabase of @payin/db). */
  db: Database;
  logger: Logger;
  merchants: MerchantDirectory;
  allocator: AddressAllocator;
  /**
   * What an amount must meet on each rail to ever be paid: the token's decimals
   * and the rail's dust threshold, from the rails configuration (config.ts).
   */
  rails: RailMinimums;
  /** Payment window of new checkout sessions, in seconds (default 30 minutes). */
  checkoutPaymentWindowS?: number;
  /** What creates, observations and checkout sessions read the time from (the system's when not given). */
  clock?: Clock;
  /** Called after a change that may have written events committed (the relay then looks at once). */
  onEvents?: () => void;
}

/** Most creates in one BatchCreatePayInIntents call. */
export const MAX_BATCH_CREATES = 1000;
/** Most observations in one RecordObservations call. */
export const MAX_OBSERVATIONS = 1000;

/** PayinsService handlers: proto in, domain call, proto out. */
export function payinsHandlers(deps: PayinsDeps): ServiceImpl<typeof payinsV1.PayinsService> {
  const clock = deps.clock ?? systemClock;
  const now = () => clock.now();
  const store = new PayInRepository(deps.db, deps.logger);
  const repo = () => store;
  const observations = observationStore(deps.db);
  const checkouts = new CheckoutRepository(deps.db);
  const createDeps = {
    store,
    merchants: deps.merchants,
    allocator: deps.allocator,
    rails: deps.rails,
    newUuid: uuidv7,
    now,
    onReleaseError: (error: unknown) => deps.logger.warn({ err: error }, "could not release an idempotency key; its lease will"),
  };
  const startDeps = {
    checkouts,
    intents: store,
    create: createDeps,
    now,
    sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  };
  const withIntent = (record: Parameters<typeof checkoutSessionToPb>[0], intent: PayInIntent | null) => ({
    session: checkoutSessionToPb(record),
    intent: intent ? payInIntentToPb(intent) : undefined,
  });
  /** The change's promise, telling the relay when it ends (its events, if any, are committed then). */
  const thenTell = <T>(change: Promise<T>): Promise<T> => change.finally(() => deps.onEvents?.());
  const createOne = async (req: payinsV1.CreatePayInIntentRequest) => {
    const result = await thenTell(createPayInIntent(
      createDeps,
      {
        merchantUuid: req.merchantUuid,
        idempotencyKey: req.idempotencyKey,
        asset: req.asset,
        amount: req.amount,
        jurisdiction: req.jurisdiction,
        expiresAt: fromTimestamp(req.expiresAt),
        reference: req.reference,
      },
    ));
    return { intent: payInIntentToPb(result.intent), replayed: result.replayed };
  };
  return {
    createPayInIntent: createOne,
    async batchCreatePayInIntents(req) {
      if (req.requests.length === 0 || req.requests.length > MAX_BATCH_CREATES) {
        throw new DomainError(PayinsReason.ValidationError, `a batch create takes 1 to ${MAX_BATCH_CREATES} requests`);
      }
      // Every create runs as it would alone; started together, their calls to
      // the store and the other services coalesce (clients/merchants.ts, clients/allocation.ts).
      const results = await settleBatch(req.requests, createOne, "created", {
        domain: "payins", codes: reasonCodes, logger: deps.logger, method: "BatchCreatePayInIntents",
      });
      return { results };
    },
    async getPayInIntent(req) {
      if (!isUuid(req.intentUuid) || !isUuid(req.merchantUuid)) throw intentNotFound();
      return { intent: payInIntentToPb(await getPayInIntent(repo(), req.merchantUuid, req.intentUuid)) };
    },
    async batchGetPayInIntents(req) {
      const intents = await getPayInIntents(repo(), req.lookups);
      return { results: intents.map((intent) => ({ intent: intent ? payInIntentToPb(intent) : undefined })) };
    },
    async listPayInIntents(req) {
      const { intents, total } = await listPayInIntents(repo(), {
        merchantUuid: req.merchantUuid,
        limit: req.limit,
        offset: req.offset,
        status: payInStatusName(req.status),
        asset: req.asset || undefined,
      });
      return { intents: intents.map(payInIntentToPb), total: BigInt(total) };
    },
    async recordObservations(req) {
      if (req.observations.length === 0 || req.observations.length > MAX_OBSERVATIONS) {
        throw new DomainError(PayinsReason.ValidationError, `a call records 1 to ${MAX_OBSERVATIONS} observations`);
      }
      const parsed = req.observations.map(observationFromPb);
      const states = await thenTell(recordObservations(observations, parsed, now()));
      return {
        intents: states.map((s) => ({ intentUuid: s.intentUuid, known: s.known, expiresAt: s.expiresAt ? toTimestamp(s.expiresAt) : undefined, paid: s.paid })),
      };
    },
    async listPayInTransfers(req) {
      if (!isUuid(req.intentUuid) || !isUuid(req.merchantUuid)) throw intentNotFound();
      return transfersToPb(
        await listPayInTransfers(repo(), observations, { merchantUuid: req.merchantUuid, intentUuid: req.intentUuid, limit: req.limit, offset: req.offset }),
      );
    },
    async createCheckoutSession(req) {
      const { session, token } = await thenTell(createCheckoutSession(
        {
          store: checkouts,
          newUuid: uuidv7,
          now,
          paymentWindowS: deps.checkoutPaymentWindowS ?? DEFAULT_PAYMENT_WINDOW_S,
          rails: deps.rails,
        },
        {
          merchantUuid: req.merchantUuid,
          reference: req.reference,
          description: req.description,
          amount: req.amount,
          jurisdiction: req.jurisdiction,
          pairs: req.pairs,
        },
      ));
      return { session: checkoutSessionToPb({ session, intentStatus: null, start: null }), token };
    },
    async getCheckoutSession(req) {
      const record = await getCheckoutSession(checkouts, req.merchantUuid, req.checkoutUuid);
      const intent = record.session.intentUuid ? await store.get(record.session.merchantUuid, record.session.intentUuid) : null;
      return withIntent(record, intent);
    },
    async listCheckoutSessions(req) {
      const { records, total } = await listCheckoutSessions(checkouts, { merchantUuid: req.merchantUuid, limit: req.limit, offset: req.offset });
      return { sessions: records.map(checkoutSessionToPb), total: BigInt(total) };
    },
    async disableCheckoutSession(req) {
      return { session: checkoutSessionToPb(await thenTell(disableCheckoutSession(checkouts, req.merchantUuid, req.checkoutUuid, now()))) };
    },
    async getCheckoutByToken(req) {
      const { record, intent } = await getCheckoutByToken(startDeps, req.token);
      return withIntent(record, intent);
    },
    async batchGetCheckoutsByToken(req) {
      const found = await getCheckoutsByToken(startDeps, req.tokens);
      return { results: found.map((f) => (f ? withIntent(f.record, f.intent) : {})) };
    },
    async startCheckout(req) {
      const { record, intent } = await thenTell(startCheckout(startDeps, { token: req.token, pair: req.pair }));
      return withIntent(record, intent);
    },
  };
}
