import { describe, expect, it } from "vitest";
import { DomainError } from "@payin/errors";
import { AllocationReason } from "./reasons.js";
import { allocateAddress, getWallet, parseRail, setWallet, type AllocateOutcome, type Allocation, type WalletStore } from "./wallet.js";

const MERCHANT = "019a0000-0000-7000-8000-000000000001";
const OTHER = "019a0000-0000-7000-8000-000000000002";
const INTENT = "019a0000-0000-7000-8000-0000000000aa";
const now = new Date("2026-11-21T12:00:00.000Z");

const existing: Allocation = {
  intentUuid: INTENT,
  merchantUuid: MERCHANT,
  index: 4,
  address: "0x0000000000000000000000000000000000000004",
  rail: "bep20",
  derivationPath: "m/44'/60'/0'/0/4",
  createdAt: now,
};

/** A store whose allocate answers `outcome`; the rest is never reached here. */
function storeAnswering(outcome: AllocateOutcome): WalletStore {
  return {
    upsert: async () => null,
    find: async () => null,
    allocate: async () => outcome,
    poolHigh: async () => -1,
    fillPool: async () => undefined,
  };
}

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return (error as DomainError).reason;
}

describe("wallet rules", () => {
  it("accepts the two rails and nothing else", () => {
    expect(parseRail("bep20")).toBe("bep20");
    expect(parseRail("erc20")).toBe("erc20");
    for (const rail of ["", "BEP20", "trc20", "bep20 "]) expect(() => parseRail(rail)).toThrow(DomainError);
  });

  it("validates the xpub before touching the store", async () => {
    expect(await reasonOf(setWallet(storeAnswering({ kind: "no-wallet" }), { merchantUuid: MERCHANT, xpub: "nope", now }))).toBe(
      AllocationReason.WalletXpubInvalid,
    );
  });

  it("answers WALLET_NOT_FOUND for a merchant without wallet", async () => {
    expect(await reasonOf(getWallet(storeAnswering({ kind: "no-wallet" }), MERCHANT))).toBe(AllocationReason.WalletNotFound);
  });

  it("maps every allocation outcome", async () => {
    const call = (outcome: AllocateOutcome, merchantUuid = MERCHANT, rail = "bep20") =>
      allocateAddress(storeAnswering(outcome), { merchantUuid, intentUuid: INTENT, rail, now });
    expect(await call({ kind: "allocated", allocation: existing })).toBe(existing);
    expect(await call({ kind: "existing", allocation: existing })).toBe(existing);
    expect(await reasonOf(call({ kind: "existing", allocation: existing }, OTHER))).toBe(AllocationReason.InvalidArgument);
    expect(await reasonOf(call({ kind: "existing", allocation: existing }, MERCHANT, "erc20"))).toBe(AllocationReason.InvalidArgument);
    expect(await reasonOf(call({ kind: "no-wallet" }))).toBe(AllocationReason.WalletNotReady);
    expect(await reasonOf(call({ kind: "address-taken" }))).toBe(AllocationReason.WalletXpubInUse);
    expect(await reasonOf(call({ kind: "no-wallet" }, MERCHANT, "sol"))).toBe(AllocationReason.InvalidArgument);
  });
});
