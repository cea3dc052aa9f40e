import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { database, migrate, openOrm, type MikroORM } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { payableTermsOf, railsFromEnv } from "@payin/rails";
import { createTestDatabase } from "@payin/testing";
import { createPayInIntent, type AddressAllocator, type CreateDeps, type MerchantDirectory, type PayInStore } from "../src/domain/create-pay-in-intent.js";
import { ormOptions } from "../src/store/orm.js";
import { PayInRepository } from "../src/store/pay-in-repository.js";

// A create that fails after its address was taken, retried: the domain on the
// real store, with an allocator that, like the real one, answers the same
// address again for the same intent uuid and the next index for a new one.
describe("a create retried after it failed past its allocation", () => {
  let orm: MikroORM;
  let repo: PayInRepository;

  beforeAll(async () => {
    const url = await createTestDatabase("payins_retry");
    await migrate(ormOptions(url));
    orm = await openOrm(ormOptions(url, 4));
    repo = new PayInRepository(database(orm));
  });
  afterAll(async () => {
    await orm?.close();
  });

  const merchants: MerchantDirectory = {
    payinContext: async () => ({ status: "active", ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "live", providerConnected: true, providerConnectedInJurisdiction: true }),
  };

  /** Indexes handed out per intent uuid, in order, as allocation keeps them. */
  const allocator = () => {
    const indexes = new Map<string, number>();
    const allocate: AddressAllocator["allocate"] = async (merchant, intentUuid) => {
      if (!indexes.has(intentUuid)) indexes.set(intentUuid, indexes.size);
      const index = indexes.get(intentUuid)!;
      // Addresses are unique across merchants: one of this merchant's key at this index.
      const address = `0x${createHash("sha256").update(`${merchant}/${index}`).digest("hex").slice(0, 40)}`;
      return { address, reference: `m/44'/60'/0'/0/${index}` };
    };
    return { indexes, allocator: { allocate } };
  };

  /** The store, whose next `failures` completions fail as a lost database would. */
  const failingStore = (failures: number): PayInStore => ({
    claimKey: (input) => repo.claimKey(input),
    releaseKey: (merchant, key, claim) => repo.releaseKey(merchant, key, claim),
    completeKey: async (intent, key) => {
      if (failures-- > 0) throw new Error("connection terminated");
      return repo.completeKey(intent, key);
    },
  });

  const deadline = new Date(Date.now() + 3_600_000);
  const request = (merchantUuid: string, key: string, amount = "10") => ({
    merchantUuid, idempotencyKey: key, asset: "usdt", amount, jurisdiction: "DE", expiresAt: deadline, reference: undefined,
  });

  const deps = (store: PayInStore, allocate: AddressAllocator): CreateDeps => ({
    store, merchants, allocator: allocate, rails: payableTermsOf(railsFromEnv({})), newUuid: uuidv7, now: () => new Date(),
  });

  it("gets the address the failed attempt was given (no gap), and then replays", async () => {
    const merchant = uuidv7();
    const { indexes, allocator: allocate } = allocator();
    await expect(createPayInIntent(deps(failingStore(2), allocate), request(merchant, "order-1"))).rejects.toThrow("connection terminated");
    await expect(createPayInIntent(deps(failingStore(1), allocate), request(merchant, "order-1"))).rejects.toThrow("connection terminated");
    const created = await createPayInIntent(deps(failingStore(0), allocate), request(merchant, "order-1"));
    expect(created.replayed).toBe(false);
    expect(created.intent.allocationReference).toBe("m/44'/60'/0'/0/0");
    expect(indexes.size).toBe(1);
    const next = await createPayInIntent(deps(failingStore(0), allocate), request(merchant, "order-2"));
    expect(next.intent.allocationReference).toBe("m/44'/60'/0'/0/1");
    const replay = await createPayInIntent(deps(failingStore(0), allocate), request(merchant, "order-1"));
    expect(replay).toEqual({ intent: created.intent, replayed: true });
  });

  it("lets a retry with another payload use the key, under a new intent", async () => {
    const merchant = uuidv7();
    const { indexes, allocator: allocate } = allocator();
    await expect(createPayInIntent(deps(failingStore(1), allocate), request(merchant, "order-1", "10"))).rejects.toThrow();
    const created = await createPayInIntent(deps(failingStore(0), allocate), request(merchant, "order-1", "12"));
    expect(created.intent.expectedAmount).toBe("12");
    expect(indexes.size).toBe(2);
  });
});
