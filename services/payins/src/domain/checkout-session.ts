import { hash, randomBytes } from "node:crypto";
import { DomainError } from "@payin/errors";
import { charLength, displayTextProblem, MAX_REFERENCE_LENGTH } from "@payin/http/text";
import { isUuid } from "@payin/ids";
import { ROUTED_PAIRS, type Asset, type Rail } from "@payin/money";
import { checkJurisdiction, checkPayable, validAmount, type PayInStatus, type RailMinimums } from "./pay-in-intent.js";
import { MAX_LIMIT } from "./read-pay-in-intents.js";
import { CheckoutReason, PayinsReason } from "./reasons.js";

/** An asset and the rail it is paid on: one of routing's pairs. */
export interface CheckoutPair {
  asset: Asset;
  rail: Rail;
}

/**
 * What the session row holds: `open` (no intent yet), `started` (its intent
 * exists), `disabled`. `paid` is never stored: a session reads as paid when its
 * intent's canonical status is paid (`sessionState`).
 */
export type StoredCheckoutState = "open" | "started" | "disabled";
export type CheckoutState = StoredCheckoutState | "paid";

/** A hosted checkout session (never its token; only the token's hash is kept). */
export interface CheckoutSession {
  checkoutUuid: string;
  merchantUuid: string;
  reference: string | null;
  description: string | null;
  /** Canonical decimal string. */
  amount: string;
  /** At least one, distinct, in the order the merchant gave them. */
  pairs: CheckoutPair[];
  /** Jurisdiction of the pay-in intent a start creates. */
  jurisdiction: string;
  state: StoredCheckoutState;
  intentUuid: string | null;
  /** Seconds from the first start to the intent's deadline. */
  paymentWindowS: number;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The terms the first start fixed (pair and deadline) before its intent
 * exists: every start until the intent exists creates it with these, so all
 * send CreatePayInIntent the same payload and converge on one intent.
 */
export interface StartTerms {
  asset: Asset;
  rail: Rail;
  expiresAt: Date;
  claimedAt: Date;
}

/** A session as read, with the canonical status of its intent (null before a start created it). */
export interface CheckoutRecord {
  session: CheckoutSession;
  intentStatus: PayInStatus | null;
  /** Set from the first start until its intent exists (and kept after). */
  start: StartTerms | null;
}

/** A create request as the service receives it. */
export interface CreateCheckoutRequest {
  merchantUuid: string;
  reference: string | undefined;
  description: string | undefined;
  amount: string;
  jurisdiction: string;
  pairs: readonly { asset: string; rail: string }[];
}

export const MAX_DESCRIPTION_LENGTH = 500;
/** Default payment window: the intent a start creates expires this long after it. */
export const DEFAULT_PAYMENT_WINDOW_S = 30 * 60;
/** Bytes of randomness in a token (43 base64url characters). */
export const TOKEN_BYTES = 32;
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

function invalid(message: string): never {
  throw new DomainError(PayinsReason.ValidationError, message);
}

function optionalText(value: string | undefined, name: string, max: number): string | null {
  if (value === undefined) return null;
  if (charLength(value) > max) invalid(`${name} must be at most ${max} characters`);
  // PostgreSQL text cannot hold U+0000.
  if (value.includes("\u0000")) invalid(`${name} must not contain the character U+0000`);
  // Both are shown to the payer and the merchant's members: the rule of names.
  const problem = displayTextProblem(value);
  if (problem) invalid(`${name} ${problem}`);
  return value;
}

/** The request's pair when routing serves it, else a VALIDATION_ERROR. */
export function routedPair(pair: { asset: string; rail: string }): CheckoutPair {
  const routed = ROUTED_PAIRS.find((p) => p.asset === pair.asset && p.rail === pair.rail);
  if (!routed) {
    invalid(`pair ${pair.asset}/${pair.rail} is not served; pairs are: ${ROUTED_PAIRS.map((p) => `${p.asset}/${p.rail}`).join(", ")}`);
  }
  return { asset: routed.asset, rail: routed.rail };
}

/**
 * A new session's fields, after every field rule (VALIDATION_ERROR otherwise):
 * the amount must be payable on every chosen pair's rail, since the payer may
 * choose any of them.
 */
export function validateCreateCheckout(req: CreateCheckoutRequest, rails: RailMinimums): Omit<CheckoutSession, "checkoutUuid" | "state" | "intentUuid" | "paymentWindowS" | "createdAt" | "updatedAt"> {
  const reference = optionalText(req.reference, "reference", MAX_REFERENCE_LENGTH);
  const description = optionalText(req.description, "description", MAX_DESCRIPTION_LENGTH);
  const amount = validAmount(req.amount);
  checkJurisdiction(req.jurisdiction);
  if (req.pairs.length === 0) invalid("a checkout needs at least one asset/rail pair");
  const pairs = req.pairs.map(routedPair);
  if (new Set(pairs.map((p) => p.asset)).size !== pairs.length) invalid("each asset/rail pair may be given once");
  for (const pair of pairs) checkPayable(amount, pair, rails);
  return { merchantUuid: req.merchantUuid, reference, description, amount, jurisdiction: req.jurisdiction, pairs };
}

/** A new token (32 random bytes, base64url) and the hash that is stored instead of it. */
export function newToken(): { token: string; tokenHash: string } {
  const token = randomBytes(TOKEN_BYTES).toString("base64url");
  return { token, tokenHash: tokenHash(token) };
}

/** SHA-256 of a token, hex. */
export function tokenHash(token: string): string {
  return hash("sha256", token, "hex");
}

/** Whether a string has a token's form (anything else is looked up as nothing). */
export function isTokenFormat(token: string): boolean {
  return TOKEN_FORMAT.test(token);
}

/** The state a session reads as: `paid` once its intent is paid, else what is stored. */
export function sessionState(record: CheckoutRecord): CheckoutState {
  return record.intentStatus === "paid" ? "paid" : record.session.state;
}

export function checkoutNotFound(): DomainError {
  return new DomainError(CheckoutReason.CheckoutNotFound, "checkout not found");
}

/**
 * The pair a start uses: the one named, which must be one the session allows,
 * or the session's only pair when none is named.
 */
export function chosenPair(session: Pick<CheckoutSession, "pairs">, requested: { asset: string; rail: string } | undefined): CheckoutPair {
  if (!requested || (requested.asset === "" && requested.rail === "")) {
    if (session.pairs.length !== 1) invalid("choose one of the checkout's asset/rail pairs");
    return session.pairs[0]!;
  }
  const allowed = session.pairs.find((p) => p.asset === requested.asset && p.rail === requested.rail);
  if (!allowed) invalid(`pair ${requested.asset}/${requested.rail} is not offered by this checkout`);
  return allowed;
}

/** Where checkout sessions are kept. */
export interface CheckoutStore {
  /** Stores a new session with its token's hash. */
  insert(session: CheckoutSession, tokenHash: string): Promise<void>;
  /** The merchant's session, or null (another merchant's included). */
  get(merchantUuid: string, checkoutUuid: string): Promise<CheckoutRecord | null>;
  /** The session of a token hash, or null. */
  getByTokenHash(tokenHash: string): Promise<CheckoutRecord | null>;
  /** A page of the merchant's sessions, newest first, and their total. */
  list(merchantUuid: string, limit: number, offset: number): Promise<{ records: CheckoutRecord[]; total: number }>;
  /** Disables the session when it is open and no start has used it; false otherwise. */
  disable(merchantUuid: string, checkoutUuid: string, now: Date): Promise<boolean>;
  /**
   * Fixes a start's terms when the session is open without an intent and has no
   * terms, or only terms whose deadline has passed (`previous`: the claim
   * replaced, null for none); false when another start got there first.
   */
  claimTerms(checkoutUuid: string, terms: StartTerms, previous: Date | null): Promise<boolean>;
  /** Forgets the terms of the claim made at `claimedAt`, unless its intent exists. */
  releaseTerms(checkoutUuid: string, claimedAt: Date): Promise<void>;
  /** Records the session's intent (state started); false when the session is disabled. */
  link(checkoutUuid: string, intentUuid: string, now: Date): Promise<boolean>;
}

export interface CreateCheckoutDeps {
  store: CheckoutStore;
  newUuid: () => string;
  now: () => Date;
  /** The payment window new sessions get. */
  paymentWindowS: number;
  /** What an amount must meet on each rail to ever be paid (the rails configuration's). */
  rails: RailMinimums;
}

/** Creates an open session and answers it with its token (the only time the token is known). */
export async function createCheckoutSession(deps: CreateCheckoutDeps, req: CreateCheckoutRequest): Promise<{ session: CheckoutSession; token: string }> {
  const fields = validateCreateCheckout(req, deps.rails);
  const now = deps.now();
  const session: CheckoutSession = {
    ...fields,
    checkoutUuid: deps.newUuid(),
    state: "open",
    intentUuid: null,
    paymentWindowS: deps.paymentWindowS,
    createdAt: now,
    updatedAt: now,
  };
  const { token, tokenHash } = newToken();
  await deps.store.insert(session, tokenHash);
  return { session, token };
}

/** The merchant's session; another merchant's is as missing as a missing one. */
export async function getCheckoutSession(store: CheckoutStore, merchantUuid: string, checkoutUuid: string): Promise<CheckoutRecord> {
  const record = isUuid(merchantUuid) && isUuid(checkoutUuid) ? await store.get(merchantUuid, checkoutUuid) : null;
  if (!record) throw checkoutNotFound();
  return record;
}

/** Checks list parameters and lists the merchant's sessions, newest first. */
export async function listCheckoutSessions(
  store: CheckoutStore,
  input: { merchantUuid: string; limit: number; offset: number },
): Promise<{ records: CheckoutRecord[]; total: number }> {
  if (!Number.isInteger(input.limit) || input.limit < 1 || input.limit > MAX_LIMIT) invalid(`limit must be 1 to ${MAX_LIMIT}`);
  if (!Number.isInteger(input.offset) || input.offset < 0) invalid("offset must be 0 or more");
  if (!isUuid(input.merchantUuid)) return { records: [], total: 0 };
  return store.list(input.merchantUuid, input.limit, input.offset);
}

/**
 * Disables an open session no start has used. Idempotent: a disabled session is
 * answered as it is. Once a start has fixed its terms (started, paid, or a start
 * in progress) it is CHECKOUT_NOT_DISABLABLE.
 */
export async function disableCheckoutSession(store: CheckoutStore, merchantUuid: string, checkoutUuid: string, now: Date): Promise<CheckoutRecord> {
  const before = await getCheckoutSession(store, merchantUuid, checkoutUuid);
  if (before.session.state === "disabled") return before;
  if (!(await store.disable(merchantUuid, checkoutUuid, now))) {
    const after = await getCheckoutSession(store, merchantUuid, checkoutUuid);
    if (after.session.state === "disabled") return after;
    throw new DomainError(CheckoutReason.CheckoutNotDisablable, "only an open checkout that no payer has started can be disabled");
  }
  return getCheckoutSession(store, merchantUuid, checkoutUuid);
}
