import { DomainError } from "@payin/errors";
import { deriveAddress, parseAccountXpub, type DerivedAddress } from "./hd.js";
import { AllocationReason } from "./reasons.js";

/** Rails an address can be watched on. Both use the EVM address format. */
export const RAILS = ["bep20", "erc20"] as const;
export type Rail = (typeof RAILS)[number];

export interface Wallet {
  merchantUuid: string;
  /** Account-level extended public key of m/44'/60'/0', as registered. */
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
   * In one transaction: takes the next index from the merchant's counter under
   * its row lock, derives the address with `derive`, and records the allocation;
   * when the intent already has one, undoes the counter bump and returns it.
   */
  allocate(
    input: { merchantUuid: string; intentUuid: string; rail: Rail; now: Date },
    derive: (xpub: string, index: number) => DerivedAddress,
  ): Promise<AllocateOutcome>;
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
): Promise<Allocation> {
  const rail = parseRail(input.rail);
  const outcome = await store.allocate({ ...input, rail }, deriveAddress);
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
    case "address-taken":
      throw new DomainError(
        AllocationReason.WalletXpubInUse,
        "the wallet's next address is already allocated to another merchant; register a different xpub",
      );
  }
}
