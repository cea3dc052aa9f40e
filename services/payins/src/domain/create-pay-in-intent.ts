import { DomainError } from "@payin/errors";
import {
  checkNotExpired,
  checkSamePayload,
  keyInUse,
  validateCreate,
  type CreateRequest,
  type PayInIntent,
  type ValidCreateRequest,
} from "./pay-in-intent.js";
import { PayinsReason } from "./reasons.js";
import type { Rail } from "./routing.js";

/** What payins needs to know about a merchant before it accepts a pay-in. */
export interface MerchantDirectory {
  /** Status of the merchant, or null when it does not exist. */
  status(merchantUuid: string): Promise<string | null>;
}

/** Hands out deposit addresses; idempotent on the intent uuid. */
export interface AddressAllocator {
  allocate(merchantUuid: string, intentUuid: string, rail: Rail): Promise<{ address: string; reference: string }>;
}

/** A stored create: the payload fingerprint and the intent it produced. */
export interface IdempotentCreate {
  requestHash: string;
  intent: PayInIntent;
}

/** Work done while holding the lock on one (merchant, idempotency key). */
export interface KeyLockedWork {
  find(merchantUuid: string, key: string): Promise<IdempotentCreate | null>;
  insert(intent: PayInIntent, key: string, requestHash: string): Promise<void>;
}

export interface PayInStore {
  /**
   * Runs `work` in one transaction holding an exclusive lock on the key; answers
   * "busy" at once, without waiting, when another transaction holds it.
   */
  withKeyLock<T>(merchantUuid: string, key: string, work: (locked: KeyLockedWork) => Promise<T>): Promise<T | "busy">;
}

export interface CreateDeps {
  store: PayInStore;
  merchants: MerchantDirectory;
  allocator: AddressAllocator;
  newUuid: () => string;
  now: () => Date;
}

export interface CreateResult {
  intent: PayInIntent;
  replayed: boolean;
}

/**
 * Creates a pay-in intent, exactly once per (merchant, idempotency key):
 * - the same key and payload replay the original intent (even after its
 *   deadline, or after the merchant stopped being active);
 * - the same key with another payload is IDEMPOTENCY_KEY_REUSED;
 * - while a request with the key is in flight, others get IDEMPOTENCY_KEY_IN_USE.
 * A new intent needs an active merchant and gets its address before it is stored
 * in the same transaction as its key, so a failed request writes no intent and no
 * key. (A failure after allocation leaves one allocated address that no intent
 * uses; the allocator never hands it out again.)
 */
export async function createPayInIntent(deps: CreateDeps, request: CreateRequest): Promise<CreateResult> {
  const req = validateCreate(request);
  const outcome = await deps.store.withKeyLock(req.merchantUuid, req.idempotencyKey, async (locked) => {
    const earlier = await locked.find(req.merchantUuid, req.idempotencyKey);
    if (earlier) {
      checkSamePayload(earlier.requestHash, req);
      return { intent: earlier.intent, replayed: true };
    }
    const now = deps.now();
    checkNotExpired(req, now);
    await requireActiveMerchant(deps.merchants, req.merchantUuid);
    const intent = await newIntent(deps, req, now);
    await locked.insert(intent, req.idempotencyKey, req.requestHash);
    return { intent, replayed: false };
  });
  if (outcome === "busy") throw keyInUse();
  return outcome;
}

async function requireActiveMerchant(merchants: MerchantDirectory, merchantUuid: string): Promise<void> {
  const status = await merchants.status(merchantUuid);
  if (status !== "active") {
    throw new DomainError(
      PayinsReason.MerchantNotActive,
      status === null ? "merchant does not exist" : `merchant is ${status}; pay-ins need an active merchant`,
    );
  }
}

async function newIntent(deps: CreateDeps, req: ValidCreateRequest, now: Date): Promise<PayInIntent> {
  const intentUuid = deps.newUuid();
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
