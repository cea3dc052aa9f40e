import { DomainError } from "@payin/errors";
import { RAILS, type Rail } from "@payin/money";
import { deriveAddress, parseAccountXpub, type DerivedAddress } from "./hd.js";
import { AllocationReason } from "./reasons.js";

export type { Rail };

export interface Wallet {
  merchantUuid: string;
  /** Account-level extended public key of m/44'/60'/N' (any hardened account N), as registered. */
  xpub: string;
  /** Index the counter hands out next. */
  nextIndex: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface Allocation {
  intentUuid: string;
  merchantUuid: string;
  index: number;
  address: string;
  rail: Rail;
  derivationPath: string;
  createdAt: Date;
}

/** What the store reports for one allocation attempt. */
export type AllocateOutcome =
  /** A new address was recorded with the next index of the merchant's counter. */
  | { kind: "allocated"; allocation: Allocation }
  /** The intent already had an address; the counter was left as it was. */
  | { kind: "existing"; allocation: Allocation }
  /** The merchant has no wallet. */
  | { kind: "no-wallet" }
  /** No pre-derived address waits at the counter's next index: fill the pool first. */
  | { kind: "pool-empty"; xpub: string; nextIndex: number }
  /** The derived address is already held by another merchant's allocation. */
  | { kind: "address-taken" };

/** Storage the wallet rules need. */
export interface WalletStore {
  /**
   * Inserts the wallet, or replaces its xpub keeping its counter and created_at;
   * null when another merchant's wallet holds the same xpub.
   */
  upsert(merchantUuid: string, xpub: string, now: Date): Promise<Wallet | null>;
  find(merchantUuid: string): Promise<Wallet | null>;
  /**
   * In one statement (its own transaction): takes the next index from the
   * merchant's counter under its row lock, consumes the pre-derived address at
   * that index from the pool and records the allocation. When the intent already
   * has an address, nothing changes and that allocation is returned.
   */
  allocate(input: { merchantUuid: string; intentUuid: string; rail: Rail; now: Date }): Promise<AllocateOutcome>;
  /** Highest pre-derived index for the merchant's current xpub, or -1. */
  poolHigh(merchantUuid: string, xpub: string): Promise<number>;
  /**
   * Adds derived addresses to the pool (ones already there are kept) and drops
   * the rows below `consumedBelow`, which allocations have used.
   */
  fillPool(merchantUuid: string, xpub: string, addresses: DerivedAddress[], consumedBelow: number): Promise<void>;
}

/**
 * Addresses are derived ahead, outside the counter's lock, so that taking an
 * index holds the merchant's row lock only for one statement. The pool is topped
 * up to POOL_BATCH ahead of the counter whenever fewer than POOL_LOW_WATER wait.
 */
export const POOL_BATCH = 200;
export const POOL_LOW_WATER = 100;

/**
 * Derives the addresses `from` ≤ index < `to` of an account key. A top-up derives
 * about a hundred at once, some 25 ms of CPU, so the service runs this in a worker
 * thread (derivation/worker-deriver.ts) where it cannot hold up the calls that the
 * event loop is serving; deriveRangeInline is the same work on the caller's thread.
 */
export type DeriveRange = (xpub: string, from: number, to: number) => Promise<DerivedAddress[]>;

/** DeriveRange on the calling thread. */
export const deriveRangeInline: DeriveRange = async (xpub, from, to) => {
  const addresses: DerivedAddress[] = [];
  for (let index = from; index < to; index++) addresses.push(deriveAddress(xpub, index));
  return addresses;
};

/** Derives and stores the addresses from `fromIndex` until POOL_BATCH past `nextIndex`. */
export async function topUpPool(
  store: WalletStore,
  input: { merchantUuid: string; xpub: string; nextIndex: number },
  deriveRange: DeriveRange = deriveRangeInline,
): Promise<number> {
  const high = await store.poolHigh(input.merchantUuid, input.xpub);
  if (high >= input.nextIndex + POOL_LOW_WATER) return high;
  const from = Math.max(high + 1, input.nextIndex);
  const to = input.nextIndex + POOL_BATCH;
  const addresses = await deriveRange(input.xpub, from, to);
  await store.fillPool(input.merchantUuid, input.xpub, addresses, input.nextIndex);
  return to - 1;
}

/** Checks a rail name: one of RAILS, lower case. */
export function parseRail(value: string): Rail {
  if (!(RAILS as readonly string[]).includes(value)) {
    throw new DomainError(AllocationReason.InvalidArgument, `rail must be one of ${RAILS.join(", ")}`);
  }
  return value as Rail;
}

/** Registers or replaces a merchant's account xpub; replacing keeps the counter. */
export async function setWallet(store: WalletStore, input: { merchantUuid: string; xpub: string; now: Date }): Promise<Wallet> {
  parseAccountXpub(input.xpub);
  const wallet = await store.upsert(input.merchantUuid, input.xpub, input.now);
  // Two merchants on one key would be handed the same addresses and could not
  // tell their payments apart.
  if (!wallet) throw new DomainError(AllocationReason.WalletXpubInUse, "xpub is already registered by another merchant");
  return wallet;
}

/** Reads a wallet or fails with WALLET_NOT_FOUND. */
export async function getWallet(store: WalletStore, merchantUuid: string): Promise<Wallet> {
  const wallet = await store.find(merchantUuid);
  if (!wallet) throw new DomainError(AllocationReason.WalletNotFound, "wallet not found");
  return wallet;
}

/**
 * Gives a pay-in intent the next address of its merchant's wallet. Idempotent on
 * the intent: a retry, even a concurrent one, gets the first call's address. A
 * retry naming another merchant or rail is a caller bug (intent uuids are minted
 * by the payins service, one merchant and rail each), so it is refused with
 * INVALID_ARGUMENT rather than answered with someone else's address.
 */
export async function allocateAddress(
  store: WalletStore,
  input: { merchantUuid: string; intentUuid: string; rail: string; now: Date },
  refillPool: (merchantUuid: string) => Promise<void> = (merchantUuid) =>
    store.find(merchantUuid).then((w) => (w ? topUpPool(store, w).then(() => undefined) : undefined)),
): Promise<Allocation> {
  const rail = parseRail(input.rail);
  let outcome = await store.allocate({ ...input, rail });
  // An empty pool is filled (deterministically, so racing fillers agree) and the
  // allocation tried again; the counter may have moved on meanwhile, so a few
  // rounds are allowed before giving up.
  for (let attempt = 0; outcome.kind === "pool-empty" && attempt < 5; attempt++) {
    await refillPool(input.merchantUuid);
    outcome = await store.allocate({ ...input, rail });
  }
  switch (outcome.kind) {
    case "allocated":
      return outcome.allocation;
    case "existing": {
      const existing = outcome.allocation;
      if (existing.merchantUuid !== input.merchantUuid) {
        throw new DomainError(AllocationReason.InvalidArgument, "intent_uuid already has an address for another merchant");
      }
      if (existing.rail !== rail) {
        throw new DomainError(AllocationReason.InvalidArgument, `intent_uuid already has an address for rail ${existing.rail}`);
      }
      return existing;
    }
    case "no-wallet":
      throw new DomainError(AllocationReason.WalletNotReady, "the merchant has no receiving wallet");
    case "pool-empty":
      throw new Error("address pool stayed empty after refilling");
    case "address-taken":
      throw new DomainError(
        AllocationReason.WalletXpubInUse,
        "the wallet's next address is already allocated to another merchant; register a different xpub",
      );
  }
}
