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
import type { Rail } from "@payin/money";

/** What payins needs to know about a merchant before it accepts a pay-in. */
export interface PayinContext {
  /** Merchant status ("active", …). */
  status: string;
  /** Effect of the open crypto.payin rule for the jurisdiction; null when none. */
  ruleEffect: "allow" | "deny" | null;
  /** Effect of the merchant's open payin policy; null when none. */
  payinPolicyEffect: "allow" | "deny" | null;
  /** Operating mode; null when the merchant has no operating profile. */
  operatingMode: string | null;
}

export interface MerchantDirectory {
  /** The merchant's pay-in context for a jurisdiction, or null when it does not exist. */
  payinContext(merchantUuid: string, jurisdiction: string): Promise<PayinContext | null>;
}

/** The capability a pay-in needs, from rules and policies. */
export const PAYIN_CAPABILITY = "crypto.payin";

/** Hands out deposit addresses; idempotent on the intent uuid. */
export interface AddressAllocator {
  allocate(merchantUuid: string, intentUuid: string, rail: Rail): Promise<{ address: string; reference: string }>;
  /**
   * Gives back the address of an intent that was never stored, for the
   * merchant's next intent. Never for an intent that may have been stored: its
   * address would be handed out twice.
   */
  release(merchantUuid: string, intentUuid: string): Promise<void>;
  /**
   * Whether an allocation that failed with `error` may have happened all the
   * same (its answer was lost); false when the allocator answered a refusal.
   */
  mayHaveAllocated(error: unknown): boolean;
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

export interface PayInStore {
  /**
   * Claims (merchant, key) for a request with `requestHash`, minting
   * `newIntentUuid` for it. A claim left pending longer than the lease (its holder
   * died) is taken over with its original intent uuid, so the allocator hands the
   * same address out again rather than a new one.
   */
  claimKey(input: { merchantUuid: string; key: string; requestHash: string; newIntentUuid: string; now: Date }): Promise<KeyClaim>;
  /** Stores the intent and marks its key completed, in one statement. */
  completeKey(intent: PayInIntent, key: string): Promise<void>;
  /**
   * Gives up a pending claim after a failure, so the client may retry with the
   * key; false when there was nothing to give up: the claim was taken over
   * (its lease ran out) or is gone.
   */
  releaseKey(merchantUuid: string, key: string, claim: Extract<KeyClaim, { kind: "claimed" }>): Promise<boolean>;
}

export interface CreateDeps {
  store: PayInStore;
  merchants: MerchantDirectory;
  allocator: AddressAllocator;
  newUuid: () => string;
  now: () => Date;
  /**
   * Called when releasing a claim fails (the lease frees it later), or giving
   * back an address allocated ahead (its index then stays unused).
   */
  onReleaseError?: (error: unknown) => void;
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
 * A new intent needs an active merchant and gets its address before it is
 * stored; a failed request stores no intent and releases its key.
 *
 * The address is asked for at the same time as the key is claimed and the
 * merchant looked up (a request already past its deadline asks for none), so a
 * create waits for the slowest of the three and then one statement, not for
 * all of them in turn. When the create then does not go ahead, that address is
 * given back before the answer, and the merchant's next intent gets it: refused
 * creates leave no gap in the wallet's indexes. It is given back only when no
 * other request can ever store an intent with its uuid: when the claim did not
 * take the key with it (a replay, a key in use or reused, a takeover of an
 * older claim), or when this request deleted its own claim, as it took it, and
 * so ended it before anyone took it over. Otherwise (the claim failed and may
 * have committed, the completing statement was sent, the claim could not be
 * deleted) the address stays allocated: an unused index, never one address on
 * two intents.
 */
export async function createPayInIntent(deps: CreateDeps, request: CreateRequest): Promise<CreateResult> {
  const req = validateCreate(request);
  const now = deps.now();
  const intentUuid = deps.newUuid();
  const ahead = isPastDeadline(req, now) ? undefined : settle(deps.allocator.allocate(req.merchantUuid, intentUuid, req.rail));
  // Gives the address allocated ahead back; also after an allocation whose
  // answer was lost, which may have happened all the same.
  const giveBack = async () => {
    if (!ahead) return;
    const settled = await ahead;
    if (!settled.ok && !deps.allocator.mayHaveAllocated(settled.error)) return;
    await deps.allocator.release(req.merchantUuid, intentUuid).catch((e: unknown) => deps.onReleaseError?.(e));
  };
  // Waits for the allocation asked for ahead; keeps it (an unused index).
  const keep = async () => void (await ahead);
  let claim: KeyClaim;
  let context: PayinContext | null;
  try {
    [claim, context] = await Promise.all([
      deps.store.claimKey({
        merchantUuid: req.merchantUuid,
        key: req.idempotencyKey,
        requestHash: req.requestHash,
        newIntentUuid: intentUuid,
        now,
      }),
      deps.merchants.payinContext(req.merchantUuid, req.jurisdiction),
    ]);
  } catch (error) {
    await keep();
    throw error;
  }
  if (claim.kind !== "claimed" || claim.intentUuid !== intentUuid) await giveBack();
  if (claim.kind === "completed") {
    checkSamePayload(claim.requestHash, req);
    return { intent: claim.intent, replayed: true };
  }
  if (claim.kind === "in-flight") {
    checkSamePayload(claim.requestHash, req);
    throw keyInUse();
  }
  // A claim taken over from a holder that died keeps that holder's intent uuid,
  // and asks for its address now: the allocator answers the same one again if
  // the holder had got one.
  const own = claim.intentUuid === intentUuid;
  let address: { address: string; reference: string };
  try {
    checkNotExpired(req, now);
    authorise(context);
    address = own && ahead ? unwrap(await ahead) : await deps.allocator.allocate(req.merchantUuid, claim.intentUuid, req.rail);
  } catch (error) {
    const released = await releaseClaim(deps, req, claim);
    if (own) await (released ? giveBack() : keep());
    throw error;
  }
  const intent = newIntent(req, claim.intentUuid, address, now);
  try {
    await deps.store.completeKey(intent, req.idempotencyKey);
  } catch (error) {
    // The statement may have committed before its answer was lost: the address
    // is not given back.
    await releaseClaim(deps, req, claim);
    throw error;
  }
  return { intent, replayed: false };
}

/** Deletes this request's own claim; false when it could not (taken over, gone, or the store failed). */
async function releaseClaim(deps: CreateDeps, req: ValidCreateRequest, claim: Extract<KeyClaim, { kind: "claimed" }>): Promise<boolean> {
  try {
    return await deps.store.releaseKey(req.merchantUuid, req.idempotencyKey, claim);
  } catch (error) {
    deps.onReleaseError?.(error);
    return false;
  }
}

type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

function unwrap<T>(settled: Settled<T>): T {
  if (!settled.ok) throw settled.error;
  return settled.value;
}

function isPastDeadline(req: ValidCreateRequest, now: Date): boolean {
  try {
    checkNotExpired(req, now);
    return false;
  } catch {
    return true;
  }
}

/**
 * A new pay-in needs, in this order: an active merchant (409), the capability
 * crypto.payin — an allowing rule for the jurisdiction and an allowing payin
 * policy of the merchant — (403), and an operating profile (409). The wallet is
 * checked by the allocator (409 WALLET_NOT_READY).
 */
export function authorise(context: PayinContext | null): void {
  if (!context || context.status !== "active") {
    throw new DomainError(
      PayinsReason.MerchantNotActive,
      context ? `merchant is ${context.status}; pay-ins need an active merchant` : "merchant does not exist",
    );
  }
  if (context.ruleEffect !== "allow") {
    throw new DomainError(
      PayinsReason.PayinNotAllowed,
      context.ruleEffect === "deny"
        ? `a platform rule denies ${PAYIN_CAPABILITY} in this jurisdiction`
        : `no platform rule allows ${PAYIN_CAPABILITY} in this jurisdiction`,
    );
  }
  if (context.payinPolicyEffect !== "allow") {
    throw new DomainError(PayinsReason.PayinNotAllowed, "the merchant's payin policy does not allow pay-ins");
  }
  if (!context.operatingMode) {
    throw new DomainError(PayinsReason.OperatingProfileMissing, "the merchant has no operating profile");
  }
}

function newIntent(
  req: ValidCreateRequest,
  intentUuid: string,
  { address, reference }: { address: string; reference: string },
  now: Date,
): PayInIntent {
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
