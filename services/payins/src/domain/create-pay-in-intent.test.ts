import { describe, expect, it } from "vitest";
import { DomainError } from "@payin/errors";
import {
  createPayInIntent,
  type AddressAllocator,
  type CreateDeps,
  type KeyClaim,
  type PayinContext,
  type PayInStore,
} from "./create-pay-in-intent.js";
import { validateCreate, type CreateRequest, type PayInIntent } from "./pay-in-intent.js";

const MERCHANT = "01a1fe6a-0000-7000-8000-000000000001";
const MINTED = "01a1fe6a-0000-7000-8000-00000000000a";
const NOW = new Date("2030-01-01T00:00:00Z");

const request: CreateRequest = {
  merchantUuid: MERCHANT,
  idempotencyKey: "k-1",
  asset: "usdt",
  amount: "10.5",
  jurisdiction: "DE",
  expiresAt: new Date("2030-01-02T00:00:00Z"),
  reference: "order-1",
};

const ACTIVE: PayinContext = { status: "active", ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "non_custodial" };

/** A refusal as the allocation service answers it (nothing was allocated). */
class Refusal extends Error {}

/**
 * The create's collaborators, recording what happens to the address asked for
 * ahead: allocations, releases, and whether the intent was stored.
 */
function world(options: {
  claim?: (minted: string) => KeyClaim;
  context?: PayinContext | null;
  allocation?: () => Promise<{ address: string; reference: string }>;
  completeFails?: boolean;
  claimFails?: boolean;
  /** The claim was taken over (its lease ran out) before this request released it. */
  takenOver?: boolean;
}) {
  const events: string[] = [];
  const allocator: AddressAllocator = {
    allocate: async (_merchant, intentUuid) => {
      events.push(`allocate ${intentUuid}`);
      return options.allocation ? options.allocation() : { address: "0xabc", reference: "m/44'/60'/0'/0/0" };
    },
    release: async (_merchant, intentUuid) => {
      events.push(`release ${intentUuid}`);
    },
    mayHaveAllocated: (error) => !(error instanceof Refusal),
  };
  const store: PayInStore = {
    claimKey: async ({ newIntentUuid }) => {
      if (options.claimFails) throw new Error("database unavailable");
      return options.claim ? options.claim(newIntentUuid) : { kind: "claimed", intentUuid: newIntentUuid, claimedAt: NOW };
    },
    completeKey: async (intent) => {
      events.push(`complete ${intent.intentUuid}`);
      if (options.completeFails) throw new Error("connection lost during commit");
    },
    releaseKey: async () => {
      events.push("release key");
      return !options.takenOver;
    },
  };
  const deps: CreateDeps = {
    store,
    merchants: { payinContext: async () => (options.context === undefined ? ACTIVE : options.context) },
    allocator,
    newUuid: () => MINTED,
    now: () => NOW,
  };
  return { deps, events };
}

const STORED: PayInIntent = {
  intentUuid: "01a1fe6a-0000-7000-8000-0000000000ff",
  merchantUuid: MERCHANT,
  status: "created",
  asset: "usdt",
  rail: "bep20",
  expectedAmount: "10.5",
  address: "0xdef",
  allocationReference: "m/44'/60'/0'/0/7",
  reference: "order-1",
  jurisdiction: "DE",
  createdAt: NOW,
  expiresAt: new Date("2030-01-02T00:00:00Z"),
  updatedAt: NOW,
};

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (error instanceof DomainError) return error.reason;
  return error instanceof Error ? error.message : String(error);
}

describe("createPayInIntent and the address asked for ahead", () => {
  it("stores the intent with the address allocated while the key was claimed, and gives nothing back", async () => {
    const { deps, events } = world({});
    const { intent, replayed } = await createPayInIntent(deps, request);
    expect(replayed).toBe(false);
    expect(intent).toMatchObject({ intentUuid: MINTED, address: "0xabc", allocationReference: "m/44'/60'/0'/0/0" });
    expect(events).toEqual([`allocate ${MINTED}`, `complete ${MINTED}`]);
  });

  it("gives the address back before replaying, and before refusing a reused or busy key", async () => {
    const hash = validateCreate(request).requestHash;
    const replay = world({ claim: () => ({ kind: "completed", requestHash: hash, intent: STORED }) });
    expect(await createPayInIntent(replay.deps, request)).toEqual({ intent: STORED, replayed: true });
    expect(replay.events).toEqual([`allocate ${MINTED}`, `release ${MINTED}`]);

    const reused = world({ claim: () => ({ kind: "completed", requestHash: "another payload", intent: STORED }) });
    expect(await reasonOf(createPayInIntent(reused.deps, request))).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(reused.events).toEqual([`allocate ${MINTED}`, `release ${MINTED}`]);

    const busy = world({ claim: () => ({ kind: "in-flight", requestHash: hash }) });
    expect(await reasonOf(createPayInIntent(busy.deps, request))).toBe("IDEMPOTENCY_KEY_IN_USE");
    expect(busy.events).toEqual([`allocate ${MINTED}`, `release ${MINTED}`]);
  });

  it("keeps the address when its claim was taken over before this request gave it up", async () => {
    // Another request now holds the key with this intent uuid and may store it
    // with this very address: giving it back could put it on two intents.
    const { deps, events } = world({ context: { ...ACTIVE, status: "suspended" }, takenOver: true });
    expect(await reasonOf(createPayInIntent(deps, request))).toBe("MERCHANT_NOT_ACTIVE");
    expect(events).toEqual([`allocate ${MINTED}`, "release key"]);
  });

  it("frees the key, then gives the address back, when the merchant refuses the create", async () => {
    const inactive = world({ context: { ...ACTIVE, status: "suspended" } });
    expect(await reasonOf(createPayInIntent(inactive.deps, request))).toBe("MERCHANT_NOT_ACTIVE");
    // The key first: only a claim still its own lets the address go.
    expect(inactive.events).toEqual([`allocate ${MINTED}`, "release key", `release ${MINTED}`]);

    const missing = world({ context: null });
    expect(await reasonOf(createPayInIntent(missing.deps, request))).toBe("MERCHANT_NOT_ACTIVE");
    expect(missing.events).toContain(`release ${MINTED}`);
  });

  it("keeps the address when the claim failed: it may have committed with this intent uuid", async () => {
    const { deps, events } = world({ claimFails: true });
    expect(await reasonOf(createPayInIntent(deps, request))).toBe("database unavailable");
    expect(events).toEqual([`allocate ${MINTED}`]);
  });

  it("asks for no address for a request past its deadline", async () => {
    const { deps, events } = world({});
    const late = { ...request, expiresAt: new Date(NOW.getTime() - 1) };
    expect(await reasonOf(createPayInIntent(deps, late))).toBe("VALIDATION_ERROR");
    expect(events).toEqual(["release key"]);
  });

  it("gives back nothing after a refused allocation, but does after one whose answer was lost", async () => {
    const refused = world({ allocation: () => Promise.reject(new Refusal("WALLET_NOT_READY")) });
    expect(await reasonOf(createPayInIntent(refused.deps, request))).toBe("WALLET_NOT_READY");
    expect(refused.events).toEqual([`allocate ${MINTED}`, "release key"]);

    const lost = world({ allocation: () => Promise.reject(new Error("deadline exceeded")) });
    expect(await reasonOf(createPayInIntent(lost.deps, request))).toBe("deadline exceeded");
    expect(lost.events).toEqual([`allocate ${MINTED}`, "release key", `release ${MINTED}`]);
  });

  it("never gives the address back once the intent may have been stored", async () => {
    const { deps, events } = world({ completeFails: true });
    expect(await reasonOf(createPayInIntent(deps, request))).toBe("connection lost during commit");
    expect(events).toEqual([`allocate ${MINTED}`, `complete ${MINTED}`, "release key"]);
  });

  it("takes a dead holder's claim over with its intent uuid, giving back the one allocated ahead", async () => {
    const held = "01a1fe6a-0000-7000-8000-0000000000aa";
    const { deps, events } = world({ claim: () => ({ kind: "claimed", intentUuid: held, claimedAt: NOW }) });
    const { intent } = await createPayInIntent(deps, request);
    expect(intent.intentUuid).toBe(held);
    expect(events).toEqual([`allocate ${MINTED}`, `release ${MINTED}`, `allocate ${held}`, `complete ${held}`]);
  });
});
