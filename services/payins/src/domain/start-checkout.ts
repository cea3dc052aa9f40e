import { DomainError } from "@payin/errors";
import { checkoutNotFound, chosenPair, isTokenFormat, tokenHash, type CheckoutRecord, type CheckoutStore, type StartTerms } from "./checkout-session.js";
import { createPayInIntent, type CreateDeps } from "./create-pay-in-intent.js";
import { keyInUse, type PayInIntent } from "./pay-in-intent.js";
import { CheckoutReason, PayinsReason } from "./reasons.js";

/** Reads intents of a merchant. */
export interface IntentReader {
  get(merchantUuid: string, intentUuid: string): Promise<PayInIntent | null>;
}

export interface StartCheckoutDeps {
  checkouts: CheckoutStore;
  intents: IntentReader;
  /** What CreatePayInIntent is built from: a start creates its intent the same way. */
  create: CreateDeps;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
  /** How long a start waits at most for a concurrent start's create (then IDEMPOTENCY_KEY_IN_USE). */
  maxWaitMs?: number;
}

/** The idempotency key of a checkout's one pay-in intent. */
export function checkoutIdempotencyKey(checkoutUuid: string): string {
  return `checkout:${checkoutUuid}`;
}

/** Longer than a create can take (two calls with 5 s deadlines and the store's). */
const DEFAULT_MAX_WAIT_MS = 15_000;

/** Most tokens in one batch read. */
export const MAX_BATCH_TOKENS = 100;

/** Reads sessions by many token hashes at once. */
export interface CheckoutBatchReader {
  /** The sessions of the hashes that have one, by hash. */
  getManyByTokenHash(tokenHashes: readonly string[]): Promise<Map<string, CheckoutRecord>>;
}

/** Reads many intents at once. */
export interface IntentBatchReader {
  getMany(intentUuids: readonly string[]): Promise<PayInIntent[]>;
}

/**
 * The sessions of many tokens and their intents, in the tokens' order, with two
 * reads in all: null for an unknown or malformed token. As getCheckoutByToken
 * for each, an intent only of its own session's merchant.
 */
export async function getCheckoutsByToken(
  deps: { checkouts: CheckoutBatchReader; intents: IntentBatchReader },
  tokens: readonly string[],
): Promise<({ record: CheckoutRecord; intent: PayInIntent | null } | null)[]> {
  if (tokens.length === 0 || tokens.length > MAX_BATCH_TOKENS) {
    throw new DomainError(PayinsReason.ValidationError, `a batch read takes 1 to ${MAX_BATCH_TOKENS} tokens`);
  }
  const hashes = tokens.map((token) => (isTokenFormat(token) ? tokenHash(token) : null));
  const wanted = [...new Set(hashes.filter((hash): hash is string => hash !== null))];
  const records = wanted.length ? await deps.checkouts.getManyByTokenHash(wanted) : new Map<string, CheckoutRecord>();
  const intentUuids = [...new Set([...records.values()].flatMap((r) => (r.session.intentUuid ? [r.session.intentUuid] : [])))];
  const intents = new Map((intentUuids.length ? await deps.intents.getMany(intentUuids) : []).map((i) => [i.intentUuid, i]));
  return hashes.map((hash) => {
    const record = hash === null ? undefined : records.get(hash);
    if (!record) return null;
    const intent = record.session.intentUuid ? intents.get(record.session.intentUuid) : undefined;
    return { record, intent: intent && intent.merchantUuid === record.session.merchantUuid ? intent : null };
  });
}

/** The session of a token and its intent, if any; an unknown or malformed token is CHECKOUT_NOT_FOUND. */
export async function getCheckoutByToken(
  deps: Pick<StartCheckoutDeps, "checkouts" | "intents">,
  token: string,
): Promise<{ record: CheckoutRecord; intent: PayInIntent | null }> {
  const record = isTokenFormat(token) ? await deps.checkouts.getByTokenHash(tokenHash(token)) : null;
  if (!record) throw checkoutNotFound();
  return { record, intent: await intentOf(deps.intents, record) };
}

async function intentOf(intents: IntentReader, record: CheckoutRecord): Promise<PayInIntent | null> {
  const { intentUuid, merchantUuid } = record.session;
  return intentUuid ? intents.get(merchantUuid, intentUuid) : null;
}

/**
 * The payer's start: creates the session's one pay-in intent, or answers the
 * one that exists.
 *
 * The first start fixes the terms (the pair, and the deadline one payment
 * window from now) on the session; every start until the intent exists then
 * asks createPayInIntent with the key `checkout:<uuid>` and exactly these
 * terms, so concurrent and retried starts are one create: one claims the key,
 * the others wait while it is in flight and then get its intent as a replay.
 * The intent is then recorded on the session (state started). A start whose
 * create is refused (merchant not active, …) gives the terms up again, so the
 * payer may start anew; terms whose deadline passed without an intent are
 * replaced by the next start (after a replay of their create, which answers an
 * intent created but not yet recorded on the session).
 */
export async function startCheckout(
  deps: StartCheckoutDeps,
  input: { token: string; pair: { asset: string; rail: string } | undefined },
): Promise<{ record: CheckoutRecord; intent: PayInIntent }> {
  const started = deps.now().getTime();
  const maxWait = deps.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const createWith = (session: CheckoutRecord["session"], terms: StartTerms) =>
    createPayInIntent(deps.create, {
      merchantUuid: session.merchantUuid,
      idempotencyKey: checkoutIdempotencyKey(session.checkoutUuid),
      asset: terms.asset,
      amount: session.amount,
      jurisdiction: session.jurisdiction,
      expiresAt: terms.expiresAt,
      reference: session.reference ?? undefined,
    });
  for (let attempt = 0; ; attempt++) {
    const { record, intent } = await getCheckoutByToken(deps, input.token);
    if (intent) return { record, intent };
    const { session } = record;
    if (session.state === "disabled") throw unavailable();
    const now = deps.now();
    let terms = record.start;
    let mine = false;
    let created: PayInIntent | null = null;
    try {
      if (terms && terms.expiresAt.getTime() <= now.getTime()) {
        // Terms whose deadline passed: their create may still have completed
        // (a start that stopped before recording it), which a replay answers;
        // otherwise it is refused as expired, creating nothing, and fresh
        // terms replace them.
        created = await createWith(session, terms).then(
          (r) => r.intent,
          (error: unknown) => {
            if (error instanceof DomainError && error.reason === PayinsReason.ValidationError) return null;
            throw error;
          },
        );
      }
      if (!created) {
        if (!terms || terms.expiresAt.getTime() <= now.getTime()) {
          const pair = chosenPair(session, input.pair);
          const fresh: StartTerms = { ...pair, expiresAt: new Date(now.getTime() + session.paymentWindowS * 1000), claimedAt: now };
          // Another start fixed terms first: read them and join it.
          if (!(await deps.checkouts.claimTerms(session.checkoutUuid, fresh, terms?.claimedAt ?? null))) continue;
          terms = fresh;
          mine = true;
        }
        created = (await createWith(session, terms)).intent;
      }
    } catch (error) {
      if (error instanceof DomainError && error.reason === PayinsReason.IdempotencyKeyInUse) {
        // A concurrent start's create is in flight: wait for it, then read again.
        if (deps.now().getTime() - started >= maxWait) throw keyInUse();
        await deps.sleep(Math.min(20 * (attempt + 1), 200));
        continue;
      }
      // A refused create (merchant not active, …) gives this start's terms up.
      if (mine && terms && error instanceof DomainError) await deps.checkouts.releaseTerms(session.checkoutUuid, terms.claimedAt);
      throw error;
    }
    // A disabled session here: disabled after this start's claim was given up
    // by a refused concurrent start; its intent is then never shown.
    if (!(await deps.checkouts.link(session.checkoutUuid, created.intentUuid, deps.now()))) throw unavailable();
    const linked = await deps.checkouts.getByTokenHash(tokenHash(input.token));
    return { record: linked!, intent: created };
  }
}

function unavailable(): DomainError {
  return new DomainError(CheckoutReason.CheckoutUnavailable, "this checkout is not available");
}
