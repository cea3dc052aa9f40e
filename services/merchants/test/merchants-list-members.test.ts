import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@payin/ids";
import { merchantsV1 } from "@payin/proto";
import { Code } from "@payin/rpc";
import { expectFailure } from "@payin/testing";
import { closedMerchant, startMerchants, UNKNOWN_UUID, type Harness } from "./harness.js";

const { MerchantStatus, MerchantTransition } = merchantsV1;

let h: Harness;

beforeAll(async () => {
  h = await startMerchants();
});

afterAll(async () => {
  await h?.close();
});

describe("ListMerchants", () => {
  it("lists newest first with an exact total and pages by limit and offset", async () => {
    const tag = `List-${uuidv7()}`;
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await h.client.createMerchant({ displayName: tag })).merchant!.uuid);
    const first = await h.client.listMerchants({ limit: 2, offset: 0, displayName: tag });
    expect(first.total).toBe(5n);
    expect(first.merchants.map((m) => m.uuid)).toEqual([created[4], created[3]]);
    const last = await h.client.listMerchants({ limit: 2, offset: 4, displayName: tag });
    expect(last.merchants.map((m) => m.uuid)).toEqual([created[0]]);
    const beyond = await h.client.listMerchants({ limit: 2, offset: 50, displayName: tag });
    expect(beyond).toMatchObject({ merchants: [], total: 5n });
  });

  it("filters exactly by status, uuid and display_name, closed merchants included", async () => {
    const tag = `Filter-${uuidv7()}`;
    const a = (await h.client.createMerchant({ displayName: tag })).merchant!.uuid;
    const b = (await h.client.createMerchant({ displayName: tag })).merchant!.uuid;
    await h.client.transitionMerchant({ uuid: b, transition: MerchantTransition.CLOSE });
    const closed = await h.client.listMerchants({ limit: 100, displayName: tag, status: MerchantStatus.CLOSED });
    expect(closed.merchants.map((m) => m.uuid)).toEqual([b]);
    const byUuid = await h.client.listMerchants({ limit: 100, uuid: a });
    expect(byUuid.total).toBe(1n);
    expect(byUuid.merchants[0]).toMatchObject({ uuid: a, displayName: tag, status: MerchantStatus.INACTIVE });
    // Exact, not a prefix or case-insensitive match.
    expect((await h.client.listMerchants({ limit: 100, displayName: tag.toLowerCase() })).total).toBe(0n);
    expect((await h.client.listMerchants({ limit: 100, displayName: tag.slice(0, -1) })).total).toBe(0n);
    expect((await h.client.listMerchants({ limit: 100, uuid: UNKNOWN_UUID })).total).toBe(0n);
    const all = await h.client.listMerchants({ limit: 100 });
    expect(all.total).toBeGreaterThanOrEqual(2n);
  });

  it.each([
    ["limit 0", { limit: 0 }],
    ["limit 101", { limit: 101 }],
    ["a malformed uuid filter", { limit: 10, uuid: "not-a-uuid" }],
    ["an unknown status", { limit: 10, status: 42 as merchantsV1.MerchantStatus }],
    ["a display_name filter holding U+0000", { limit: 10, displayName: "a\u0000b" }],
  ])("refuses %s with INVALID_ARGUMENT", async (_name, req) => {
    await expectFailure(h.client.listMerchants(req), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it("accepts the bounds limit 1 and limit 100", async () => {
    expect((await h.client.listMerchants({ limit: 1 })).merchants.length).toBeLessThanOrEqual(1);
    await h.client.listMerchants({ limit: 100 });
  });
});

describe("EnsureMember and ListMemberships", () => {
  it("attaches once and answers created=false on repeats", async () => {
    const merchant = (await h.client.createMerchant({ displayName: "Members" })).merchant!.uuid;
    const identity = uuidv7();
    const first = await h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity });
    expect(first.created).toBe(true);
    expect(first.membership).toMatchObject({ merchantUuid: merchant, identityUuid: identity });
    const again = await h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity });
    expect(again.created).toBe(false);
    expect(again.membership?.createdAt).toEqual(first.membership?.createdAt);
    const other = (await h.client.createMerchant({ displayName: "Members 2" })).merchant!.uuid;
    await h.client.ensureMember({ merchantUuid: other, identityUuid: identity });
    const { memberships } = await h.client.listMemberships({ identityUuid: identity });
    expect(memberships.map((m) => m.merchantUuid)).toEqual([merchant, other]);
    expect((await h.client.listMemberships({ identityUuid: uuidv7() })).memberships).toEqual([]);
  });

  it("lets a closed merchant gain members (it stays readable)", async () => {
    const merchant = await closedMerchant(h.client);
    expect((await h.client.ensureMember({ merchantUuid: merchant, identityUuid: uuidv7() })).created).toBe(true);
  });

  it("answers MERCHANT_NOT_FOUND for an unknown or malformed merchant", async () => {
    for (const merchantUuid of [UNKNOWN_UUID, "nope"]) {
      await expectFailure(h.client.ensureMember({ merchantUuid, identityUuid: uuidv7() }), Code.NotFound, "MERCHANT_NOT_FOUND");
    }
  });

  it("refuses a malformed identity uuid with INVALID_ARGUMENT", async () => {
    const merchant = (await h.client.createMerchant({ displayName: "Members 3" })).merchant!.uuid;
    for (const identityUuid of ["", "not-a-uuid", UNKNOWN_UUID.toUpperCase()]) {
      await expectFailure(h.client.ensureMember({ merchantUuid: merchant, identityUuid }), Code.InvalidArgument, "INVALID_ARGUMENT");
    }
    await expectFailure(h.client.listMemberships({ identityUuid: "x" }), Code.InvalidArgument, "INVALID_ARGUMENT");
  });

  it("gives one membership to 20 concurrent identical requests", async () => {
    const merchant = (await h.client.createMerchant({ displayName: "Members race" })).merchant!.uuid;
    const identity = uuidv7();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => h.client.ensureMember({ merchantUuid: merchant, identityUuid: identity })),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const { memberships } = await h.client.listMemberships({ identityUuid: identity });
    expect(memberships).toHaveLength(1);
  });
});
