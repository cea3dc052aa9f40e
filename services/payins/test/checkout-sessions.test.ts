import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toJsonString } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { payinsV1 } from "@payin/proto";
import { Code } from "@payin/rpc";
import { expectFailure } from "@payin/testing";
import { startPayinsHarness } from "./harness.js";
import type { AddressAllocator, MerchantDirectory, PayinContext } from "../src/domain/create-pay-in-intent.js";

const { CheckoutState, PayInStatus } = payinsV1;

const WINDOW_S = 600;
const USDT = { asset: "usdt", rail: "bep20" };
const USDC = { asset: "usdc", rail: "erc20" };

/** Merchants' statuses; any merchant not named is active and ready. */
const statuses = new Map<string, string>();
const merchants: MerchantDirectory = {
  payinContext: async (merchantUuid): Promise<PayinContext> => ({
    status: statuses.get(merchantUuid) ?? "active", ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "non_custodial", providerConnected: true, providerConnectedInJurisdiction: true,
  }),
};
/** Addresses handed out, by intent uuid (idempotent on it, as allocation is). */
const allocations = new Map<string, string>();
const allocator: AddressAllocator = {
  allocate: async (merchantUuid, intentUuid) => {
    if (!allocations.has(intentUuid)) {
      allocations.set(intentUuid, `0x${createHash("sha256").update(`${merchantUuid}/${intentUuid}`).digest("hex").slice(0, 40)}`);
    }
    return { address: allocations.get(intentUuid)!, reference: `m/44'/60'/0'/0/${allocations.size}` };
  },
};

let orm: MikroORM;
let client: Client<typeof payinsV1.PayinsService>;

beforeAll(async () => {
  ({ orm, client } = await startPayinsHarness({ merchants, allocator, checkoutPaymentWindowS: WINDOW_S }));
});

afterAll(async () => {
  await orm?.close();
});

const query = async <T = Record<string, unknown>>(sql: string, values: unknown[] = []) =>
  (await orm.em.getConnection().execute(sql, values)) as T[];

const intentCount = async (merchantUuid: string) =>
  Number((await query<{ n: string }>("select count(*) as n from pay_in_intents where merchant_uuid = ?", [merchantUuid]))[0]!.n);

const checkoutCount = async (merchantUuid: string) =>
  Number((await query<{ n: string }>("select count(*) as n from checkout_sessions where merchant_uuid = ?", [merchantUuid]))[0]!.n);

/** The fields of a create a test changes. */
interface CreateInit {
  reference: string;
  description: string;
  amount: string;
  jurisdiction: string;
  pairs: { asset: string; rail: string }[];
}

function create(merchantUuid: string, over: Partial<CreateInit> = {}) {
  return client.createCheckoutSession({
    merchantUuid, reference: "order-1", description: "Two tickets", amount: "25.50", jurisdiction: "DE", pairs: [USDT, USDC], ...over,
  });
}

describe("CreateCheckoutSession", () => {
  it("answers the open session and its token once, and keeps only the token's hash", async () => {
    const shop = uuidv7();
    const { session, token } = await create(shop);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session).toMatchObject({
      merchantUuid: shop, reference: "order-1", description: "Two tickets", amount: "25.5", jurisdiction: "DE",
      state: CheckoutState.OPEN, paymentWindowSeconds: WINDOW_S, pairs: [USDT, USDC],
    });
    expect(session!.intentUuid).toBeUndefined();

    const [row] = await query<Record<string, unknown>>("select *, amount::text as amount from checkout_sessions where uuid = ?", [session!.checkoutUuid]);
    expect(row!.token_hash).toBe(createHash("sha256").update(token).digest("hex"));
    expect(row!.state).toBe("open");
    expect(row!.amount).toBe("25.5");
    // No row of any table of the schema holds the token, or a part of it worth a guess.
    const tables = await query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'payins'");
    expect(tables.map((t) => t.table_name)).toContain("checkout_sessions");
    for (const { table_name: table } of tables) {
      const rows = await query<{ t: string }>(`select t::text as t from payins.${table} t`);
      for (const r of rows) expect(r.t, table).not.toContain(token.slice(0, 16));
    }
    // Reads never answer it again.
    const read = await client.getCheckoutSession({ merchantUuid: shop, checkoutUuid: session!.checkoutUuid });
    expect(toJsonString(payinsV1.GetCheckoutSessionResponseSchema, read)).not.toContain(token);
    expect(read.session).toEqual(session);
  });

  it("refuses a field that breaks a rule with VALIDATION_ERROR, creating nothing", async () => {
    const shop = uuidv7();
    const bad: Partial<CreateInit>[] = [
      { amount: "0" }, { amount: "1,5" }, { amount: "1e3" }, { amount: "" }, { amount: "1.0000001" },
      { pairs: [] }, { pairs: [{ asset: "usdt", rail: "erc20" }] }, { pairs: [USDT, USDT] }, { pairs: [{ asset: "", rail: "" }] },
      { jurisdiction: "" }, { jurisdiction: "XX" }, { reference: "r".repeat(256) }, { description: "d".repeat(501) },
      // What the payer reads: no bidirectional override or zero-width character.
      { description: "Refund \u202Eredro" }, { description: "Two\u200Btickets" }, { reference: "INV-\u20661\u2069" }, { reference: "INV\uFEFF-1" },
    ];
    for (const over of bad) await expectFailure(create(shop, over), Code.InvalidArgument, "VALIDATION_ERROR");
    expect(await checkoutCount(shop)).toBe(0);
  });
});

describe("GetCheckoutSession and ListCheckoutSessions", () => {
  it("read the merchant's own sessions only, newest first, with their total", async () => {
    const shop = uuidv7();
    const other = uuidv7();
    const first = (await create(shop, { reference: "a" })).session!;
    const second = (await create(shop, { reference: "b" })).session!;
    const theirs = (await create(other, { reference: "theirs" })).session!;

    await expectFailure(client.getCheckoutSession({ merchantUuid: shop, checkoutUuid: theirs.checkoutUuid }), Code.NotFound, "CHECKOUT_NOT_FOUND");
    await expectFailure(client.getCheckoutSession({ merchantUuid: shop, checkoutUuid: uuidv7() }), Code.NotFound, "CHECKOUT_NOT_FOUND");
    await expectFailure(client.getCheckoutSession({ merchantUuid: shop, checkoutUuid: "nope" }), Code.NotFound, "CHECKOUT_NOT_FOUND");
    expect((await client.getCheckoutSession({ merchantUuid: other, checkoutUuid: theirs.checkoutUuid })).session?.reference).toBe("theirs");

    const page = await client.listCheckoutSessions({ merchantUuid: shop, limit: 10, offset: 0 });
    expect(page.sessions.map((s) => s.checkoutUuid)).toEqual([second.checkoutUuid, first.checkoutUuid]);
    expect(page.total).toBe(2n);
    const next = await client.listCheckoutSessions({ merchantUuid: shop, limit: 1, offset: 1 });
    expect(next.sessions.map((s) => s.reference)).toEqual(["a"]);
    expect(next.total).toBe(2n);
    expect(await client.listCheckoutSessions({ merchantUuid: uuidv7(), limit: 10, offset: 0 })).toMatchObject({ sessions: [], total: 0n });
    await expectFailure(client.listCheckoutSessions({ merchantUuid: shop, limit: 0, offset: 0 }), Code.InvalidArgument, "VALIDATION_ERROR");
    await expectFailure(client.listCheckoutSessions({ merchantUuid: shop, limit: 101, offset: 0 }), Code.InvalidArgument, "VALIDATION_ERROR");
  });
});

describe("GetCheckoutByToken", () => {
  it("answers the session of a token, and a generic CHECKOUT_NOT_FOUND for an unknown or malformed one", async () => {
    const shop = uuidv7();
    const { session, token } = await create(shop);
    const read = await client.getCheckoutByToken({ token });
    expect(read.session).toEqual(session);
    expect(read.intent).toBeUndefined();
    expect(await intentCount(shop)).toBe(0);

    const unknown = "A".repeat(43);
    for (const t of [unknown, "", "short", `${token}x`, token.slice(1), "../../etc/passwd", token.toUpperCase() === token ? "b".repeat(43) : token.toUpperCase()]) {
      const error = await expectFailure(client.getCheckoutByToken({ token: t }), Code.NotFound, "CHECKOUT_NOT_FOUND");
      expect(error.rawMessage).toBe("checkout not found");
    }
  });
});

describe("BatchGetCheckoutsByToken", () => {
  it("answers each token as GetCheckoutByToken does, in order, with nothing for an unknown or malformed one", async () => {
    const shop = uuidv7();
    const one = await create(shop);
    const two = await create(uuidv7());
    await client.startCheckout({ token: two.token, pair: USDT });
    const started = await client.getCheckoutByToken({ token: two.token });
    expect(started.intent).toBeDefined();
    const tokens = [two.token, "A".repeat(43), one.token, "short", two.token];
    const { results } = await client.batchGetCheckoutsByToken({ tokens });
    expect(results).toHaveLength(5);
    expect(results[0]).toEqual({ ...started, $typeName: results[0]!.$typeName });
    expect(results[1]!.session).toBeUndefined();
    expect(results[2]!.session).toEqual(one.session);
    expect(results[2]!.intent).toBeUndefined();
    expect(results[3]!.session).toBeUndefined();
    expect(results[4]!.intent).toEqual(started.intent);
    expect(await intentCount(shop)).toBe(0);
    await expectFailure(client.batchGetCheckoutsByToken({ tokens: [] }), Code.InvalidArgument, "VALIDATION_ERROR");
    await expectFailure(client.batchGetCheckoutsByToken({ tokens: Array.from({ length: 101 }, () => one.token) }), Code.InvalidArgument, "VALIDATION_ERROR");
  });
});

describe("DisableCheckoutSession", () => {
  it("disables an open, unused session (again: the same answer) and its link then starts nothing", async () => {
    const shop = uuidv7();
    const { session, token } = await create(shop);
    const disabled = (await client.disableCheckoutSession({ merchantUuid: shop, checkoutUuid: session!.checkoutUuid })).session!;
    expect(disabled.state).toBe(CheckoutState.DISABLED);
    const again = (await client.disableCheckoutSession({ merchantUuid: shop, checkoutUuid: session!.checkoutUuid })).session!;
    expect(again).toEqual(disabled);

    await expectFailure(client.startCheckout({ token, pair: USDT }), Code.FailedPrecondition, "CHECKOUT_UNAVAILABLE");
    expect(await intentCount(shop)).toBe(0);
    expect((await client.getCheckoutByToken({ token })).session?.state).toBe(CheckoutState.DISABLED);
  });

  it("refuses a started session, and another merchant's as missing", async () => {
    const shop = uuidv7();
    const { session, token } = await create(shop);
    await expectFailure(client.disableCheckoutSession({ merchantUuid: uuidv7(), checkoutUuid: session!.checkoutUuid }), Code.NotFound, "CHECKOUT_NOT_FOUND");
    await client.startCheckout({ token, pair: USDC });
    await expectFailure(client.disableCheckoutSession({ merchantUuid: shop, checkoutUuid: session!.checkoutUuid }), Code.FailedPrecondition, "CHECKOUT_NOT_DISABLABLE");
    expect((await client.getCheckoutSession({ merchantUuid: shop, checkoutUuid: session!.checkoutUuid })).session?.state).toBe(CheckoutState.STARTED);
  });
});

describe("StartCheckout", () => {
  it("creates the one pay-in intent with the session's amount, the chosen pair and a deadline one window away", async () => {
    const shop = uuidv7();
    const { session, token } = await create(shop, { amount: "010.500" });
    const before = Date.now();
    const started = await client.startCheckout({ token, pair: USDC });
    const after = Date.now();
    const intent = started.intent!;
    expect(intent).toMatchObject({
      merchantUuid: shop, status: PayInStatus.CREATED, asset: "usdc", rail: "erc20", expectedAmount: "10.5", jurisdiction: "DE", reference: "order-1",
    });
    expect(intent.address).toMatch(/^0x[0-9a-f]{40}$/);
    const expiresAt = Number(intent.expiresAt!.seconds) * 1000 + Math.floor(intent.expiresAt!.nanos / 1e6);
    expect(expiresAt).toBeGreaterThanOrEqual(before + WINDOW_S * 1000);
    expect(expiresAt).toBeLessThanOrEqual(after + WINDOW_S * 1000);
    expect(started.session).toMatchObject({ checkoutUuid: session!.checkoutUuid, state: CheckoutState.STARTED, intentUuid: intent.intentUuid });

    // Again, with the other pair or none: the same intent, nothing new.
    expect((await client.startCheckout({ token, pair: USDC })).intent).toEqual(intent);
    expect((await client.startCheckout({ token, pair: USDT })).intent).toEqual(intent);
    expect((await client.startCheckout({ token })).intent).toEqual(intent);
    expect(await intentCount(shop)).toBe(1);
    // The page and the merchant's detail see it.
    expect((await client.getCheckoutByToken({ token })).intent).toEqual(intent);
    expect((await client.getCheckoutSession({ merchantUuid: shop, checkoutUuid: session!.checkoutUuid })).intent).toEqual(intent);
  });

  it("creates exactly one intent for 100 concurrent starts, and every answer names it", async () => {
    const shop = uuidv7();
    const { token } = await create(shop, { pairs: [USDT] });
    const answers = await Promise.all(Array.from({ length: 100 }, () => client.startCheckout({ token })));
    const uuids = new Set(answers.map((a) => a.intent?.intentUuid));
    expect(uuids.size).toBe(1);
    expect(await intentCount(shop)).toBe(1);
    const [row] = await query<{ intent_uuid: string }>("select intent_uuid from pay_in_intents where merchant_uuid = ?", [shop]);
    expect([...uuids][0]).toBe(row!.intent_uuid);
    expect(answers.every((a) => a.session?.intentUuid === row!.intent_uuid && a.session.state === CheckoutState.STARTED)).toBe(true);
    expect(answers.every((a) => a.intent?.asset === "usdt" && a.intent.rail === "bep20")).toBe(true);
  });

  it("refuses a pair the session does not allow, and no pair among several, creating nothing", async () => {
    const shop = uuidv7();
    const one = await create(shop, { pairs: [USDC] });
    await expectFailure(client.startCheckout({ token: one.token, pair: USDT }), Code.InvalidArgument, "VALIDATION_ERROR");
    await expectFailure(client.startCheckout({ token: one.token, pair: { asset: "doge", rail: "bep20" } }), Code.InvalidArgument, "VALIDATION_ERROR");
    const several = await create(shop, { pairs: [USDT, USDC] });
    await expectFailure(client.startCheckout({ token: several.token }), Code.InvalidArgument, "VALIDATION_ERROR");
    expect(await intentCount(shop)).toBe(0);
    // Still open, so still disablable.
    const state = await client.getCheckoutByToken({ token: one.token });
    expect(state.session?.state).toBe(CheckoutState.OPEN);
  });

  it("answers an unknown token with CHECKOUT_NOT_FOUND", async () => {
    await expectFailure(client.startCheckout({ token: "Z".repeat(43), pair: USDT }), Code.NotFound, "CHECKOUT_NOT_FOUND");
    await expectFailure(client.startCheckout({ token: "x", pair: USDT }), Code.NotFound, "CHECKOUT_NOT_FOUND");
  });

  it("passes a refused create on, leaving the session open and unused for a later start", async () => {
    const shop = uuidv7();
    statuses.set(shop, "suspended");
    const { session, token } = await create(shop, { pairs: [USDT, USDC] });
    await expectFailure(client.startCheckout({ token, pair: USDT }), Code.FailedPrecondition, "MERCHANT_NOT_ACTIVE");
    expect(await intentCount(shop)).toBe(0);
    const [row] = await query<{ start_claimed_at: unknown }>("select start_claimed_at from checkout_sessions where uuid = ?", [session!.checkoutUuid]);
    expect(row!.start_claimed_at).toBeNull();

    // Once the merchant is active, the payer may start with either pair.
    statuses.delete(shop);
    const started = await client.startCheckout({ token, pair: USDC });
    expect(started.intent).toMatchObject({ asset: "usdc", rail: "erc20" });
    expect(await intentCount(shop)).toBe(1);
  });

  it("reads the session as paid once its intent is paid", async () => {
    const shop = uuidv7();
    const { session, token } = await create(shop, { pairs: [USDT] });
    const { intent } = await client.startCheckout({ token });
    await query("update pay_in_intents set status = 'paid' where intent_uuid = ?", [intent!.intentUuid]);
    expect((await client.getCheckoutByToken({ token })).session?.state).toBe(CheckoutState.PAID);
    const listed = await client.listCheckoutSessions({ merchantUuid: shop, limit: 10, offset: 0 });
    expect(listed.sessions.map((s) => s.state)).toEqual([CheckoutState.PAID]);
    await expectFailure(client.disableCheckoutSession({ merchantUuid: shop, checkoutUuid: session!.checkoutUuid }), Code.FailedPrecondition, "CHECKOUT_NOT_DISABLABLE");
    // A start after payment answers the paid intent.
    expect((await client.startCheckout({ token })).intent?.status).toBe(PayInStatus.PAID);
  });
});
