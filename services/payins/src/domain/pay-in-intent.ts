import { hash } from "node:crypto";
import { DomainError } from "@payin/errors";
import { AmountError, canonicalAmount, isAsset, RAIL_FOR_ASSET, type Asset, type Rail } from "@payin/money";
import { isCountryCode } from "@payin/ids/countries";
import { payability, type PayableTerms } from "@payin/rails";
import { PayinsReason } from "./reasons.js";
import { charLength, idempotencyKeyProblem, MAX_IDEMPOTENCY_KEY_LENGTH, MAX_REFERENCE_LENGTH } from "@payin/http/text";

export type PayInStatus = "created" | "awaiting_payment" | "paid";
export const PAY_IN_STATUSES = ["created", "awaiting_payment", "paid"] as const satisfies readonly PayInStatus[];
/** A status added to PayInStatus but not to PAY_IN_STATUSES (the list filter's set) fails to compile here. */
type EveryStatusListed<Missing extends never> = Missing;
export type PayInStatusesComplete = EveryStatusListed<Exclude<PayInStatus, (typeof PAY_IN_STATUSES)[number]>>;

export interface PayInIntent {
  intentUuid: string;
  merchantUuid: string;
  status: PayInStatus;
  asset: Asset;
  rail: Rail;
  expectedAmount: string;
  address: string | null;
  allocationReference: string | null;
  reference: string | null;
  jurisdiction: string;
  createdAt: Date;
  expiresAt: Date;
  updatedAt: Date;
}

/** A create request as the service receives it. */
export interface CreateRequest {
  merchantUuid: string;
  idempotencyKey: string;
  asset: string;
  amount: string;
  jurisdiction: string;
  expiresAt: Date | undefined;
  reference: string | undefined;
}

/** A create request that passed every format rule, with its payload fingerprint. */
export interface ValidCreateRequest {
  merchantUuid: string;
  idempotencyKey: string;
  asset: Asset;
  rail: Rail;
  amount: string;
  jurisdiction: string;
  expiresAt: Date;
  reference: string | null;
  /** SHA-256 over the canonical payload: what "same payload" means for replays. */
  requestHash: string;
}

function invalid(message: string): never {
  throw new DomainError(PayinsReason.ValidationError, message);
}

/** An amount by the API's rules, as its canonical decimal string (VALIDATION_ERROR otherwise). */
export function validAmount(text: string): string {
  try {
    return canonicalAmount(text);
  } catch (error) {
    if (error instanceof AmountError) invalid(error.message);
    throw error;
  }
}

/**
 * Per rail, what an amount must meet to be paid there (the token's decimals and
 * the rail's dust threshold): the rails configuration payins reads at boot.
 */
export type RailMinimums = Readonly<Record<Rail, PayableTerms>>;

/**
 * Refuses (VALIDATION_ERROR, naming the minimum) a canonical amount that could
 * never be paid on the pair's rail: below its dust threshold, whose transfers
 * never count, or finer than its token's smallest unit.
 */
export function checkPayable(amount: string, pair: { rail: Rail }, rails: RailMinimums): void {
  const verdict = payability(amount, rails[pair.rail]);
  if (!verdict.payable) invalid(verdict.message);
}

/** Refuses (VALIDATION_ERROR) anything but an assigned ISO 3166-1 alpha-2 code in upper case. */
export function checkJurisdiction(text: string): void {
  if (!/^[A-Z]{2}$/.test(text)) invalid("jurisdiction must be exactly 2 upper-case letters (ISO 3166-1 alpha-2)");
  if (!isCountryCode(text)) invalid("jurisdiction must be an assigned ISO 3166-1 alpha-2 country code");
}

/**
 * Checks every format rule of a create request (not the clock: see
 * `checkNotExpired`) and fingerprints its canonical payload. Two requests with the
 * same asset, amount value, jurisdiction, deadline instant and reference are the
 * same payload, so `"10.50"` replays `"10.5"`.
 */
export function validateCreate(req: CreateRequest): ValidCreateRequest {
  // Refused here, before an address is taken.
  const keyProblem = idempotencyKeyProblem(req.idempotencyKey);
  if (keyProblem === "unstorable") throw new DomainError(PayinsReason.IdempotencyKeyInvalid, "Idempotency-Key must not contain the character U+0000");
  if (keyProblem) throw new DomainError(PayinsReason.IdempotencyKeyInvalid, `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  if (!isAsset(req.asset)) invalid("asset must be one of: usdt, usdc");
  const amount = validAmount(req.amount);
  checkJurisdiction(req.jurisdiction);
  if (!req.expiresAt || Number.isNaN(req.expiresAt.getTime())) invalid("expires_at is required");
  const reference = req.reference ?? null;
  if (reference !== null && charLength(reference) > MAX_REFERENCE_LENGTH) {
    invalid(`reference must be at most ${MAX_REFERENCE_LENGTH} characters`);
  }
  if (reference?.includes("\u0000")) invalid("reference must not contain the character U+0000");
  const payload = JSON.stringify([req.asset, amount, req.jurisdiction, req.expiresAt.getTime(), reference]);
  return {
    merchantUuid: req.merchantUuid,
    idempotencyKey: req.idempotencyKey,
    asset: req.asset,
    rail: RAIL_FOR_ASSET[req.asset],
    amount,
    jurisdiction: req.jurisdiction,
    expiresAt: req.expiresAt,
    reference,
    requestHash: hash("sha256", payload, "hex"),
  };
}

/** The deadline must lie in the future when the intent is first created. */
export function checkNotExpired(req: ValidCreateRequest, now: Date): void {
  if (req.expiresAt.getTime() <= now.getTime()) invalid("expires_at must lie in the future");
}

/** Refuses a replay whose payload differs from the original's. */
export function checkSamePayload(storedHash: string, req: ValidCreateRequest): void {
  if (storedHash !== req.requestHash) {
    throw new DomainError(
      PayinsReason.IdempotencyKeyReused,
      "the idempotency key was reused with a different payload; use a new Idempotency-Key for a new payment",
    );
  }
}

/** The answer while another request with the same key is still being processed. */
export function keyInUse(): DomainError {
  return new DomainError(
    PayinsReason.IdempotencyKeyInUse,
    "a request with this Idempotency-Key is still in progress; retry later with the same key and body",
  );
}

export function intentNotFound(): DomainError {
  return new DomainError(PayinsReason.PayInIntentNotFound, "pay-in intent not found");
}
