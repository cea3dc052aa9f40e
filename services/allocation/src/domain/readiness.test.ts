import { describe, expect, it } from "vitest";
import { MAX_ADDRESS_INDEX as LAST_INDEX } from "@payin/eligibility";
import { allocationV1 } from "@payin/proto";
import {
  MAX_ADDRESS_INDEX,
  READINESS_REASONS,
  decidePair,
  getReadiness,
  isObserving,
  type MerchantReadinessInputs,
  type ReadinessDeps,
} from "./readiness.js";
import type { Wallet, WalletStore } from "./wallet.js";

const merchant: MerchantReadinessInputs = {
  status: "active",
  payinPolicyEffect: "allow",
  operatingMode: "hybrid",
  ruleEffect: null,
  providerConnected: true,
  providerConnectedInJurisdiction: false,
};
const wallet = (nextIndex: number): Wallet => ({ merchantUuid: "m", xpub: "xpub", nextIndex, createdAt: new Date(0), updatedAt: new Date(0) });
const usdt = { asset: "usdt", rail: "bep20" };
/** Everything ready merchant-wide: the merchant's side, a wallet, the rail observed. */
const ready = { merchant, jurisdiction: null, wallet: wallet(0), observing: true };

describe("decidePair", () => {
  it("keeps the contract's order of reasons: ReadinessReason's values without READINESS_REASON_, in lower case", () => {
    const contract = allocationV1.file_payin_allocation_v1_allocation_service.enums.find((e) => e.name === "ReadinessReason")!;
    const fromEnum = contract.values.filter((v) => v.number !== 0).map((v) => v.name.replace(/^READINESS_REASON_/, "").toLowerCase());
    expect(READINESS_REASONS).toEqual(fromEnum);
    expect(READINESS_REASONS[0]).toBe("merchant_inactive");
  });

  it("is ready with nothing failing", () => {
    expect(decidePair(usdt, ready)).toEqual({ ...usdt, ready: true, reasons: [] });
    expect(decidePair(usdt, ready, "configuration")).toEqual({ ...usdt, ready: true, reasons: [] });
  });

  it("names every failing part, the merchant's and the platform's", () => {
    const none: MerchantReadinessInputs = { ...merchant, status: "closed", payinPolicyEffect: null, operatingMode: null, providerConnected: false };
    // Every reason but allocator_not_ready: with no wallet there is no index to run out of.
    const everything = READINESS_REASONS.filter((r) => r !== "allocator_not_ready");
    const nothing = { merchant: none, jurisdiction: null, wallet: null, observing: false };
    expect(decidePair({ asset: "usdc", rail: "bep20" }, nothing).reasons).toEqual(everything);
    expect(decidePair({ asset: "usdc", rail: "bep20" }, nothing, "configuration").reasons).toEqual(everything);
  });

  it("decides a jurisdiction's rule and provider binding when asked about one", () => {
    const inFr = { ...ready, jurisdiction: "FR" };
    expect(decidePair(usdt, inFr).reasons).toEqual(["payin_not_allowed", "provider_not_ready"]);
    expect(decidePair(usdt, { ...inFr, merchant: { ...merchant, ruleEffect: "allow", providerConnectedInJurisdiction: true } }).reasons).toEqual([]);
  });

  it("says allocator_not_ready once the wallet has handed out its last index (the one eligibility and derivation agree on)", () => {
    expect(MAX_ADDRESS_INDEX).toBe(LAST_INDEX);
    expect(decidePair(usdt, { ...ready, wallet: wallet(MAX_ADDRESS_INDEX) }).reasons).toEqual([]);
    expect(decidePair(usdt, { ...ready, wallet: wallet(MAX_ADDRESS_INDEX + 1) }).reasons).toEqual(["allocator_not_ready"]);
  });

  it("treats a deny policy like a missing one", () => {
    expect(decidePair(usdt, { ...ready, merchant: { ...merchant, payinPolicyEffect: "deny" }, wallet: wallet(3) }).reasons).toEqual(["payin_not_allowed"]);
  });

  it("says provider_not_ready for a rail not observed, in the operation scope only: a lagging observer is transient", () => {
    const unobserved = { ...ready, observing: false };
    expect(decidePair(usdt, unobserved)).toEqual({ ...usdt, ready: false, reasons: ["provider_not_ready"] });
    expect(decidePair(usdt, unobserved, "operation")).toEqual({ ...usdt, ready: false, reasons: ["provider_not_ready"] });
    expect(decidePair(usdt, unobserved, "configuration")).toEqual({ ...usdt, ready: true, reasons: [] });
  });

  it("says provider_not_ready without a connected provider in both scopes, once however many parts fail", () => {
    const unconnected = { ...ready, merchant: { ...merchant, providerConnected: false } };
    for (const scope of ["configuration", "operation"] as const) {
      expect(decidePair(usdt, unconnected, scope).reasons).toEqual(["provider_not_ready"]);
      expect(decidePair(usdt, { ...unconnected, observing: false }, scope).reasons).toEqual(["provider_not_ready"]);
    }
  });

  it("leaves every other reason the same in both scopes", () => {
    const inputs = { merchant: { ...merchant, status: "suspended" as const, operatingMode: null }, jurisdiction: null, wallet: null, observing: false };
    expect(decidePair(usdt, inputs, "operation").reasons).toEqual(["merchant_inactive", "operating_profile_missing", "wallet_not_ready", "provider_not_ready"]);
    expect(decidePair(usdt, inputs, "configuration").reasons).toEqual(["merchant_inactive", "operating_profile_missing", "wallet_not_ready"]);
  });
});

describe("isObserving", () => {
  const now = new Date("2026-11-25T12:00:00.000Z");
  const ago = (ms: number) => new Date(now.getTime() - ms);

  it("is true while the observer advanced within the stall time, false after it and without a cursor", () => {
    expect(isObserving(ago(0), now, 60_000)).toBe(true);
    expect(isObserving(ago(60_000), now, 60_000)).toBe(true);
    expect(isObserving(ago(60_001), now, 60_000)).toBe(false);
    expect(isObserving(ago(120_000), now, 60_000)).toBe(false);
    expect(isObserving(undefined, now, 60_000)).toBe(false);
  });

  it("counts an instant a little ahead of the clock (the observer's clock) as now", () => {
    expect(isObserving(new Date(now.getTime() + 2_000), now, 60_000)).toBe(true);
  });
});

describe("getReadiness", () => {
  const merchantUuid = "0192a3b4-0000-7000-8000-000000000001";
  const now = new Date("2026-11-25T12:00:00.000Z");
  const deps = (advanced: Record<string, Date>, clock = now): ReadinessDeps => ({
    merchants: { readinessInputs: async () => merchant },
    wallets: { find: async () => wallet(0) } as unknown as WalletStore,
    observation: { lastAdvanced: async () => new Map(Object.entries(advanced)) },
    now: () => clock,
    observerStallMs: 60_000,
  });

  it("judges each pair by its own rail's observer, on the injected clock; it clears once the observer catches up", async () => {
    const reasons = async (d: ReadinessDeps) => (await getReadiness(d, { merchantUuid, pairs: [] })).map((p) => [p.rail, p.reasons]);
    // bep20 advanced just now, erc20 two minutes ago.
    const advanced = { bep20: now, erc20: new Date(now.getTime() - 120_000) };
    expect(await reasons(deps(advanced))).toEqual([
      ["bep20", []],
      ["erc20", ["provider_not_ready"]],
    ]);
    // A minute and a half later bep20 has stalled too...
    expect(await reasons(deps(advanced, new Date(now.getTime() + 90_000)))).toEqual([
      ["bep20", ["provider_not_ready"]],
      ["erc20", ["provider_not_ready"]],
    ]);
    // ...and a rail with no cursor at all is not observed; erc20's observer caught up.
    expect(await reasons(deps({ erc20: now }))).toEqual([
      ["bep20", ["provider_not_ready"]],
      ["erc20", []],
    ]);
    // In the configuration scope none of that counts.
    expect((await getReadiness(deps({}), { merchantUuid, pairs: [], scope: "configuration" })).map((p) => p.ready)).toEqual([true, true]);
  });
});
