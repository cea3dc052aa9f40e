import { DomainError } from "@payin/errors";
import {
  checkNotExpired,
  checkPayable,
  checkSamePayload,
  keyInUse,
  validateCreate,
  type CreateRequest,
  type PayInIntent,
  type RailMinimums,
  type ValidCreateRequest,
} from "./pay-in-intent.js";
import { PayinsReason } from "./reasons.js";
import { decide, type MerchantSide } from "@payin/eligibility";
import { PAYIN_CAPABILITY } from "@payin/permissions";
import type { Rail } from "@payin/money";

/**
 * What payins needs to know about a merchant before it accepts a pay-in in a
 * jurisdiction: the merchants service's pay-in context (GetPayinContext), the
 * merchant's side of the one eligibility decision (@payin/eligibility), which
 * readiness makes from the same answer.
 */
export type PayinContext = MerchantSide;

export interface MerchantDirectory {
  /** The merchant's pay-in context for a jurisdiction, or null when it does not exist. */
  payinContext(merchantUuid: string, jurisdiction: string): Promise<PayinContext | null>;
}

/** Hands out deposit addresses; idempotent on the intent uuid. */
export interface AddressAllocator {
  allocate(merchantUuid: string, intentUuid: string, rail: Rail): Promise<{ address: string; reference: string }>;
}

/** The state of an idempotency key after an attempt to claim it. */
export type KeyClaim =
  /**
   * This request owns the key and must create the intent with `intentUuid`;
   * `claimedAt` tells this claim from a later takeover of the same key.
   */
  | { kind: "claimed"; intentUuid: string; claimedAt: Date }
  /** An earlier request with the key finished and created `intent`. */
  | { kind: "completed"; requestHash: string; intent: PayInIntent }
  /** Another request holds the key and has not finished. */
  | { kind: "in-flight"; requestHash: string };

/** A key this request holds. */
export type ClaimedKey = Extract<KeyClaim, { kind: "claimed" }>;

export interface PayInStore {
  /**
   * Claims (merchant, key) for a request with `requestHash`, minting
   * `newIntentUuid` for it. A key whose create failed (released), or a claim left
   * pending longer than the lease (its holder died), is taken over; with the same
   * payload it keeps its original intent uuid, so the allocator hands the same
   * address out again rather than a new one.
   */
  claimKey(input: { merchantUuid: string; key: string; requestHash: string; newIntentUuid: string; now: Date }): Promise<KeyClaim>;
  /** Stores the intent, marks its key completed and writes its created event, in one statement. */
  completeKey(intent: PayInIntent, key: string): Promise<void>;
  /**
   * Gives up a pending claim after a failure, so the client may retry with the
   * key (with any payload); the key keeps its intent uuid for a retry with the
   * same payload, which so gets the address this attempt may have been given.
   * Only the claim as this request took it (`claimedAt`): once its lease ran out
   * and another request took the key over, that request's claim stays. False
   * when there was nothing to give up.
   */
  releaseKey(merchantUuid: string, key: string, claim: ClaimedKey): Promise<boolean>;
}

export interface CreateDeps {
  store: PayInStore;
  merchants: MerchantDirectory;
  allocator: AddressAllocator;
  /** What an amount must meet on each rail to ever be paid (the rails configuration's). */
  rails: RailMinimums;
  newUuid: () => string;
  now: () => Date;
  /** Called when releasing a claim fails (the lease will free it later). */
  onReleaseError?: (error: unknown) => void;
}

export interface CreateResult {
  /** The intent as its create answered it: for a replay, as it was created (asCreated). */
  intent: PayInIntent;
  replayed: boolean;
}

/**
 * An intent as its create answered it. A create always stores an intent
 * `created`, and afterwards only its status and updated_at ever change (the
 * observer arms it, transfers pay it); so the original answer is the stored
 * intent with those two as they were. A replay answers this, not the intent's
 * current state: the same answer as the first, as a client retrying after a
 * lost response expects (and as the create's schema says: status `created`).
 */
export function asCreated(intent: PayInIntent): PayInIntent {
  return { ...intent, status: "created", updatedAt: intent.createdAt };
}

/**
 * Creates a pay-in intent, exactly once per (merchant, idempotency key):
 * - the same key and payload replay the original answer: the intent as it
 *   was created, whatever its status now (even after its deadline, or after
 *   the merchant stopped being active);
 * - the same key with another payload is IDEMPOTENCY_KEY_REUSED;
 * - while a request with the key is in flight, others get IDEMPOTENCY_KEY_IN_USE.
 * A new intent needs an amount its rail can ever count (checkPayable) and an
 * active merchant, and gets its address before it is stored; a failed request
 * stores no intent and releases its key.
 */
export async function createPayInIntent(deps: CreateDeps, request: CreateRequest): Promise<CreateResult> {
  const req = validateCreate(request);
  const now = deps.now();
  // The merchant lookup does not depend on the claim: run both at once.
  const [claim, context] = await Promise.all([
    deps.store.claimKey({
      merchantUuid: req.merchantUuid,
      key: req.idempotencyKey,
      requestHash: req.requestHash,
      newIntentUuid: deps.newUuid(),
      now,
    }),
    deps.merchants.payinContext(req.merchantUuid, req.jurisdiction),
  ]);
  if (claim.kind === "completed") {
    checkSamePayload(claim.requestHash, req);
    return { intent: asCreated(claim.intent), replayed: true };
  }
  if (claim.kind === "in-flight") {
    checkSamePayload(claim.requestHash, req);
    throw keyInUse();
  }
  try {
    checkNotExpired(req, now);
    // Like the deadline, for a new intent only: a replay answers what was created.
    checkPayable(req.amount, req, deps.rails);
    authorise(context, req);
    const intent = await newIntent(deps, req, claim.intentUuid, now);
    await deps.store.completeKey(intent, req.idempotencyKey);
    return { intent, replayed: false };
  } catch (error) {
    await deps.store.releaseKey(req.merchantUuid, req.idempotencyKey, claim).catch((e: unknown) => deps.onReleaseError?.(e));
    throw error;
  }
}

/**
 * A new pay-in is refused on every reason of the one eligibility decision
 * (@payin/eligibility's `decide`) for its pair and jurisdiction, the decision
 * readiness makes (allocation's GetReadiness with the jurisdiction), from the
 * same merchant inputs, in the "configuration" scope: a rail whose chain
 * observer lags refuses no create (transient: the observer catches up from its
 * cursor, so the intent is watched once it does). The wallet is judged where
 * the address is allocated (WALLET_NOT_READY, the same condition as
 * wallet_not_ready); the pair is always one the platform serves (the asset
 * decides the rail). Each reason keeps the code it had before readiness
 * existed, the first failing in this order giving it: merchant_inactive (409
 * MERCHANT_NOT_ACTIVE), payin_not_allowed — an allowing crypto.payin rule for
 * the jurisdiction and an allowing payin policy — (403 PAYIN_NOT_ALLOWED),
 * operating_profile_missing (409 OPERATING_PROFILE_MISSING); any other (409
 * PAYIN_NOT_READY) is named in the message, e.g. provider_not_ready: no
 * provider bound for crypto.payin in the jurisdiction with a connection to it.
 */
export function authorise(context: PayinContext | null, payIn: { asset: string; rail: string; jurisdiction: string }): void {
  if (!context) throw new DomainError(PayinsReason.MerchantNotActive, "merchant does not exist");
  const { asset, rail, jurisdiction } = payIn;
  const reasons = decide({ pair: { asset, rail }, jurisdiction, merchant: context }, "configuration");
  if (reasons.length === 0) return;
  if (reasons.includes("merchant_inactive")) {
    throw new DomainError(PayinsReason.MerchantNotActive, `merchant is ${context.status}; pay-ins need an active merchant`);
  }
  if (reasons.includes("payin_not_allowed")) {
    if (context.ruleEffect !== "allow") {
      throw new DomainError(
        PayinsReason.PayinNotAllowed,
        context.ruleEffect === "deny"
          ? `a platform rule denies ${PAYIN_CAPABILITY} in ${jurisdiction}`
          : `no platform rule allows ${PAYIN_CAPABILITY} in ${jurisdiction}`,
      );
    }
    throw new DomainError(PayinsReason.PayinNotAllowed, "the merchant's payin policy does not allow pay-ins");
  }
  if (reasons.includes("operating_profile_missing")) {
    throw new DomainError(PayinsReason.OperatingProfileMissing, "the merchant has no operating profile");
  }
  throw new DomainError(PayinsReason.PayinNotReady, `the merchant is not ready for ${asset} on ${rail} in ${jurisdiction}: ${reasons.join(", ")}`);
}

async function newIntent(deps: CreateDeps, req: ValidCreateRequest, intentUuid: string, now: Date): Promise<PayInIntent> {
  const { address, reference } = await deps.allocator.allocate(req.merchantUuid, intentUuid, req.rail);
  return {
    intentUuid,
    merchantUuid: req.merchantUuid,
    status: "created",
    asset: req.asset,
    rail: req.rail,
    expectedAmount: req.amount,
    address,
    allocationReference: reference,
    reference: req.reference,
    jurisdiction: req.jurisdiction,
    createdAt: now,
    expiresAt: req.expiresAt,
    updatedAt: now,
  };
}
