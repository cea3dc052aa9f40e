/**
 * The transfers (evidence) of a pay-in intent end to end: a real platform, the
 * evidence recorded through the payins service as the chain observer would (here
 * as the `test` caller), and read over HTTP like a merchant's server or a member
 * would. Covers the listing and its amounts, the states and flags, the intent's
 * status following the evidence, and the same access rules and 404 as the read.
 */
import { randomBytes } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { payinsV1 } from "@payin/proto";
import { createServiceClient, toTimestamp } from "@payin/rpc";
import { awaitFreshTotpStep, totpCodeAt } from "@payin/testing";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type ApiResponse,
  bootstrapAdmin,
  createBody,
  expectError,
  expectKeys,
  inFuture,
  intentsPath,
  ISO_UTC,
  READ_KEYS,
  type TestMerchant,
  unknownMachineToken,
  usePlatform,
} from "./support.js";

const { TransferState } = payinsV1;

const TRANSFERS_KEYS = [
  "after_paid_amount", "asset", "data", "dust_count", "expected_amount", "intent_uuid", "pagination", "pending_amount", "rail", "received_amount",
];
const TRANSFER_KEYS = ["amount", "asset", "block_number", "block_time", "chain_id", "flags", "from_address", "log_index", "rail", "state", "tx_hash"];
const FLAG_KEYS = ["after_paid", "dust", "late", "vanished", "wrong_network", "wrong_token"];
const NO_FLAGS = { late: false, wrong_network: false, wrong_token: false, dust: false, after_paid: false, vanished: false };

/** Chain ids of the rails as the test reports them (the observer's are configured; payins keeps what it is told). */
const BSC = 56;
const ETHEREUM = 1;
const SENDER = `0x${"ab".repeat(20)}`;

const e2e = usePlatform();
/** Two ordinary merchants, each with wallet and credential. */
let a: TestMerchant;
let b: TestMerchant;
/** Bearer sessions of a member of A and of a member of B. */
let memberOfA = "";
let memberOfB = "";
/** payins, called as the `test` caller (allowed every RPC): it plays the chain observer. */
let payins: Client<typeof payinsV1.PayinsService>;

let ipCounter = 1;
/** Signs a person in over RPC, completing MFA with `totpSecret` when asked; answers the session token. */
async function signIn(email: string, password: string, totpSecret?: string): Promise<string> {
  const clientIp = `10.7.0.${ipCounter++}`;
  const res = await e2e.operator.identity.login({ email, password, transport: "bearer", clientIp });
  if (res.result.case === "authenticated") return res.result.value.sessionToken;
  expect(res.result.case).toBe("mfaChallengeToken");
  const done = await e2e.operator.identity.completeMfa({ mfaChallengeToken: res.result.value as string, code: totpCodeAt(totpSecret!), clientIp });
  return done.authenticated!.sessionToken;
}

beforeAll(async () => {
  payins = createServiceClient(payinsV1.PayinsService, { baseUrl: e2e.platform.serviceUrls.payins!, serviceToken: e2e.platform.serviceToken, timeoutMs: 15_000 });
  [a, b] = await Promise.all([e2e.operator.merchant({ name: "Evidence Shop A" }), e2e.operator.merchant({ name: "Evidence Shop B" })]);
  const admin = await bootstrapAdmin(e2e.operator);
  await awaitFreshTotpStep();
  const adminSession = await signIn(admin.email, admin.password, admin.totpSecret);
  const member = async (merchantUuid: string) => {
    const email = `m-${randomBytes(5).toString("hex")}@example.com`;
    const password = `pw-${randomBytes(12).toString("base64url")}`;
    const res = await e2e.operator.identity.createIdentity({ caller: { sessionToken: adminSession }, email, password, roles: ["merchant_member"] });
    await e2e.operator.merchants.ensureMember({ merchantUuid, identityUuid: res.identity!.uuid });
    return signIn(email, password);
  };
  memberOfA = await member(a.uuid);
  memberOfB = await member(b.uuid);
}, 180_000);

function transfers(merchantUuid: string, token: string | undefined, intentUuid: string, query = ""): Promise<ApiResponse> {
  return e2e.api.request("GET", `${intentsPath(merchantUuid)}/${intentUuid}/transfers${query}`, { token });
}

/** Creates an intent of A over HTTP; answers the create response. */
async function createIntent(overrides: Record<string, unknown> = {}): Promise<{ intent_uuid: string; address: string; expires_at: string }> {
  const res = await e2e.api.create(a.uuid, a.token, createBody(overrides));
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function statusOf(intentUuid: string): Promise<string> {
  const res = await e2e.api.read(a.uuid, a.token, intentUuid);
  expect(res.status, res.text).toBe(200);
  expectKeys(res.body, READ_KEYS);
  return res.body.status as string;
}

type Observation = MessageInitShape<typeof payinsV1.ObservationSchema>;

function armed(intentUuid: string, rail = "bep20", chainId = BSC): Observation {
  return { intentUuid, event: { case: "armed", value: { rail, chainId: BigInt(chainId), fromBlock: 100n } } };
}

interface TransferInit {
  rail?: string;
  chainId?: number;
  asset?: string;
  decimals?: number;
  amountBaseUnits: string;
  txHash?: string;
  logIndex?: number;
  blockNumber: number;
  blockTime: Date;
  state: payinsV1.TransferState;
  version?: number;
  dust?: boolean;
}

const newHash = () => `0x${randomBytes(32).toString("hex")}`;

/** A transfer observation; usdt on bep20 (18 decimals) unless told otherwise. */
function transfer(intentUuid: string, to: string, t: TransferInit): Observation {
  return {
    intentUuid,
    event: {
      case: "transfer",
      value: {
        rail: t.rail ?? "bep20",
        chainId: BigInt(t.chainId ?? BSC),
        txHash: t.txHash ?? newHash(),
        logIndex: t.logIndex ?? 0,
        asset: t.asset ?? "usdt",
        decimals: t.decimals ?? 18,
        amountBaseUnits: t.amountBaseUnits,
        fromAddress: SENDER,
        toAddress: to.toLowerCase(),
        blockNumber: BigInt(t.blockNumber),
        blockHash: newHash(),
        blockTime: toTimestamp(t.blockTime),
        state: t.state,
        version: t.version ?? 1,
        dust: t.dust ?? false,
      },
    },
  };
}

async function record(...observations: Observation[]): Promise<void> {
  const res = await payins.recordObservations({ observations });
  for (const state of res.intents) expect(state.known).toBe(true);
}

/** A block time a little in the past, to the second (as a chain has it). */
function recentBlockTime(secondsAgo = 60): Date {
  return new Date(Math.floor(Date.now() / 1000 - secondsAgo) * 1000);
}

describe("transfers of a pay-in intent", () => {
  it("lists none for an intent with no transfers, received and pending 0", async () => {
    const intent = await createIntent({ asset: "usdt", amount: "10.50" });
    const res = await transfers(a.uuid, a.token, intent.intent_uuid);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expectKeys(res.body, TRANSFERS_KEYS);
    expect(res.body).toEqual({
      intent_uuid: intent.intent_uuid,
      asset: "usdt",
      rail: "bep20",
      expected_amount: "10.5",
      received_amount: "0",
      pending_amount: "0",
      after_paid_amount: "0",
      dust_count: 0,
      data: [],
      pagination: { total: 0, limit: 20, offset: 0 },
    });
    // A member of the merchant reads the same.
    const asMember = await transfers(a.uuid, memberOfA, intent.intent_uuid);
    expect(asMember.status, asMember.text).toBe(200);
    expect(asMember.body).toEqual(res.body);
  });

  it("follows a transfer from pending to settled, and the intent from awaiting_payment to paid", async () => {
    const intent = await createIntent({ asset: "usdt", amount: "12.5" });
    expect(await statusOf(intent.intent_uuid)).toBe("created");

    await record(armed(intent.intent_uuid));
    expect(await statusOf(intent.intent_uuid)).toBe("awaiting_payment");
    expect((await transfers(a.uuid, a.token, intent.intent_uuid)).body).toMatchObject({ received_amount: "0", pending_amount: "0", data: [] });

    const blockTime = recentBlockTime();
    const txHash = newHash();
    const seen = { txHash, logIndex: 3, blockNumber: 123, blockTime, amountBaseUnits: "12500000000000000000" };
    await record(transfer(intent.intent_uuid, intent.address, { ...seen, state: TransferState.PENDING, version: 1 }));
    const pending = await transfers(a.uuid, a.token, intent.intent_uuid);
    expect(pending.status, pending.text).toBe(200);
    const item = {
      chain_id: BSC,
      rail: "bep20",
      asset: "usdt",
      tx_hash: txHash,
      log_index: 3,
      block_number: 123,
      block_time: blockTime.toISOString(),
      from_address: SENDER,
      amount: "12.5",
      state: "pending",
      flags: NO_FLAGS,
    };
    expect(pending.body).toEqual({
      intent_uuid: intent.intent_uuid,
      asset: "usdt",
      rail: "bep20",
      expected_amount: "12.5",
      received_amount: "0",
      pending_amount: "12.5",
      after_paid_amount: "0",
      dust_count: 0,
      data: [item],
      pagination: { total: 1, limit: 20, offset: 0 },
    });
    expectKeys(pending.body.data[0], TRANSFER_KEYS);
    expectKeys(pending.body.data[0].flags, FLAG_KEYS);
    expect(pending.body.data[0].block_time).toMatch(ISO_UTC);
    // Seen, not settled: no payment yet.
    expect(await statusOf(intent.intent_uuid)).toBe("awaiting_payment");

    await record(transfer(intent.intent_uuid, intent.address, { ...seen, state: TransferState.SETTLED, version: 2 }));
    const settled = await transfers(a.uuid, a.token, intent.intent_uuid);
    expect(settled.status, settled.text).toBe(200);
    expect(settled.body).toMatchObject({ received_amount: "12.5", pending_amount: "0", data: [{ ...item, state: "settled" }] });
    expect(settled.body.data).toHaveLength(1);
    expect(await statusOf(intent.intent_uuid)).toBe("paid");

    // The older version reported again changes nothing.
    await record(transfer(intent.intent_uuid, intent.address, { ...seen, state: TransferState.PENDING, version: 1 }));
    expect((await transfers(a.uuid, a.token, intent.intent_uuid)).body).toEqual(settled.body);
    expect(await statusOf(intent.intent_uuid)).toBe("paid");
  });

  it("lists wrong-token, late, wrong-network, dust and orphaned transfers with their flags, and counts none", async () => {
    const intent = await createIntent({ asset: "usdt", amount: "10", expires_at: inFuture(3_600_000) });
    const expiresAt = new Date(intent.expires_at);
    const inTime = recentBlockTime();
    const ten18 = "10000000000000000000";
    await record(
      armed(intent.intent_uuid),
      // usdc on the intent's rail: another watched token.
      transfer(intent.intent_uuid, intent.address, { asset: "usdc", amountBaseUnits: ten18, blockNumber: 200, blockTime: inTime, state: TransferState.SETTLED }),
      // The intent's token on its rail, in a block after the deadline.
      transfer(intent.intent_uuid, intent.address, {
        amountBaseUnits: ten18,
        blockNumber: 201,
        blockTime: new Date(expiresAt.getTime() + 60_000),
        state: TransferState.SETTLED,
      }),
      // usdt on erc20 (6 decimals): the same address on the other rail.
      transfer(intent.intent_uuid, intent.address, {
        rail: "erc20",
        chainId: ETHEREUM,
        decimals: 6,
        amountBaseUnits: "10000000",
        blockNumber: 202,
        blockTime: inTime,
        state: TransferState.SETTLED,
      }),
      // Zero: dust.
      transfer(intent.intent_uuid, intent.address, { amountBaseUnits: "0", blockNumber: 203, blockTime: inTime, state: TransferState.SETTLED, dust: true }),
      // Its block reorganised out.
      transfer(intent.intent_uuid, intent.address, { amountBaseUnits: ten18, blockNumber: 204, blockTime: inTime, state: TransferState.ORPHANED, version: 2 }),
    );
    const res = await transfers(a.uuid, a.token, intent.intent_uuid);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ asset: "usdt", rail: "bep20", expected_amount: "10", received_amount: "0", pending_amount: "0", dust_count: 1 });
    const data = res.body.data as any[];
    // Oldest block first.
    expect(data.map((t) => t.block_number)).toEqual([200, 201, 202, 203, 204]);
    expect(res.body.pagination).toEqual({ total: 5, limit: 20, offset: 0 });
    // A page of them, as every list pages: the amounts still sum every transfer.
    const paged = await transfers(a.uuid, a.token, intent.intent_uuid, "?limit=2&offset=1");
    expect(paged.status, paged.text).toBe(200);
    expect((paged.body.data as any[]).map((t) => t.block_number)).toEqual([201, 202]);
    expect(paged.body.pagination).toEqual({ total: 5, limit: 2, offset: 1 });
    expect(paged.body).toMatchObject({ expected_amount: "10", received_amount: "0", pending_amount: "0", dust_count: 1 });
    for (const t of data) {
      expectKeys(t, TRANSFER_KEYS);
      expectKeys(t.flags, FLAG_KEYS);
    }
    expect(data[0]).toMatchObject({ asset: "usdc", rail: "bep20", amount: "10", state: "settled", flags: { ...NO_FLAGS, wrong_token: true } });
    expect(data[1]).toMatchObject({ asset: "usdt", rail: "bep20", amount: "10", state: "settled", flags: { ...NO_FLAGS, late: true } });
    expect(data[1].block_time).toBe(new Date(expiresAt.getTime() + 60_000).toISOString());
    expect(data[2]).toMatchObject({ asset: "usdt", rail: "erc20", chain_id: ETHEREUM, amount: "10", state: "settled", flags: { ...NO_FLAGS, wrong_network: true } });
    expect(data[3]).toMatchObject({ amount: "0", state: "settled", flags: { ...NO_FLAGS, dust: true } });
    expect(data[4]).toMatchObject({ amount: "10", state: "orphaned", flags: NO_FLAGS });
    expect(await statusOf(intent.intent_uuid)).toBe("awaiting_payment");
  });

  it("counts usdc on erc20 in 6 decimals, and adds up several settled transfers", async () => {
    const intent = await createIntent({ asset: "usdc", amount: "25" });
    const to = intent.address;
    const at = recentBlockTime();
    const usdc = { rail: "erc20", chainId: ETHEREUM, asset: "usdc", decimals: 6, blockTime: at };
    await record(
      armed(intent.intent_uuid, "erc20", ETHEREUM),
      transfer(intent.intent_uuid, to, { ...usdc, amountBaseUnits: "10000000", blockNumber: 500, state: TransferState.SETTLED }),
      transfer(intent.intent_uuid, to, { ...usdc, amountBaseUnits: "5250000", blockNumber: 501, state: TransferState.PENDING }),
    );
    const partly = await transfers(a.uuid, a.token, intent.intent_uuid);
    expect(partly.body).toMatchObject({ asset: "usdc", rail: "erc20", expected_amount: "25", received_amount: "10", pending_amount: "5.25" });
    expect(partly.body.data.map((t: { amount: string }) => t.amount)).toEqual(["10", "5.25"]);
    expect(await statusOf(intent.intent_uuid)).toBe("awaiting_payment");

    await record(transfer(intent.intent_uuid, to, { ...usdc, amountBaseUnits: "15000000", blockNumber: 502, state: TransferState.SETTLED }));
    expect((await transfers(a.uuid, a.token, intent.intent_uuid)).body).toMatchObject({ received_amount: "25", pending_amount: "5.25" });
    expect(await statusOf(intent.intent_uuid)).toBe("paid");
  });
});

describe("transfers after paid and in pages", () => {
  it("flags what arrives after paid, sums it as the amount to give back, and keeps the intent paid", async () => {
    const intent = await createIntent({ asset: "usdt", amount: "12.5" });
    const at = recentBlockTime();
    const full = "12500000000000000000";
    await record(armed(intent.intent_uuid), transfer(intent.intent_uuid, intent.address, { amountBaseUnits: full, blockNumber: 300, blockTime: at, state: TransferState.SETTLED }));
    expect(await statusOf(intent.intent_uuid)).toBe("paid");
    // Paid twice, then topped up: both after paid, each given back once settled.
    const again = { amountBaseUnits: full, blockNumber: 301, blockTime: at, txHash: newHash() };
    await record(
      transfer(intent.intent_uuid, intent.address, { ...again, state: TransferState.PENDING }),
      transfer(intent.intent_uuid, intent.address, { amountBaseUnits: "250000000000000000", blockNumber: 302, blockTime: at, state: TransferState.SETTLED }),
    );
    const pending = await transfers(a.uuid, a.token, intent.intent_uuid);
    expect(pending.status, pending.text).toBe(200);
    expect(pending.body).toMatchObject({ received_amount: "12.5", pending_amount: "0", after_paid_amount: "0.25" });
    expect((pending.body.data as any[]).map((t) => [t.amount, t.state, t.flags.after_paid])).toEqual([
      ["12.5", "settled", false],
      ["12.5", "pending", true],
      ["0.25", "settled", true],
    ]);
    await record(transfer(intent.intent_uuid, intent.address, { ...again, state: TransferState.SETTLED, version: 2 }));
    const settled = await transfers(a.uuid, a.token, intent.intent_uuid);
    expect(settled.body).toMatchObject({ expected_amount: "12.5", received_amount: "12.5", pending_amount: "0", after_paid_amount: "12.75" });
    expect(settled.body.data[1]).toMatchObject({ amount: "12.5", state: "settled", flags: { ...NO_FLAGS, after_paid: true } });
    expect(await statusOf(intent.intent_uuid)).toBe("paid");
  });

  it("pages 300 zero-value transfers: a bounded page, every one counted, the amounts over all of them", async () => {
    const intent = await createIntent({ asset: "usdt", amount: "10" });
    const at = recentBlockTime();
    const spam = Array.from({ length: 300 }, (_, n) =>
      transfer(intent.intent_uuid, intent.address, { amountBaseUnits: "0", blockNumber: 1_000 + n, blockTime: at, state: TransferState.SETTLED, dust: true }),
    );
    await record(armed(intent.intent_uuid), transfer(intent.intent_uuid, intent.address, { amountBaseUnits: "4000000000000000000", blockNumber: 999, blockTime: at, state: TransferState.SETTLED }), ...spam);
    const first = await transfers(a.uuid, a.token, intent.intent_uuid);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ received_amount: "4", pending_amount: "0", after_paid_amount: "0", dust_count: 300 });
    expect(first.body.pagination).toEqual({ total: 301, limit: 20, offset: 0 });
    expect(first.body.data).toHaveLength(20);
    expect(first.body.data[0]).toMatchObject({ block_number: 999, amount: "4", flags: NO_FLAGS });
    // A page is small whatever the spam: 20 transfers.
    expect(first.text.length).toBeLessThan(12_000);
    const last = await transfers(a.uuid, a.token, intent.intent_uuid, "?limit=100&offset=250");
    expect(last.body.pagination).toEqual({ total: 301, limit: 100, offset: 250 });
    expect((last.body.data as any[]).map((t) => t.block_number)).toEqual(Array.from({ length: 51 }, (_, n) => 1_249 + n));
    expect(last.body).toMatchObject({ received_amount: "4", dust_count: 300 });
    const past = await transfers(a.uuid, a.token, intent.intent_uuid, "?offset=5000");
    expect(past.body).toMatchObject({ data: [], pagination: { total: 301, limit: 20, offset: 5000 }, received_amount: "4", dust_count: 300 });
  });
});

describe("transfers: the read's access rules", () => {
  /** Asserts the transfers answer is the read's: the same status, code and message. */
  async function expectSameAsRead(merchantUuid: string, token: string | undefined, intentUuid: string, status: number): Promise<void> {
    const read = expectError(await e2e.api.read(merchantUuid, token, intentUuid), status);
    const listed = expectError(await transfers(merchantUuid, token, intentUuid), status);
    expect({ code: listed.code, message: listed.message }).toEqual({ code: read.code, message: read.message });
  }

  it("answers 401 without valid credentials, as the read does", async () => {
    const intent = await createIntent();
    await expectSameAsRead(a.uuid, undefined, intent.intent_uuid, 401);
    const unknown = unknownMachineToken();
    e2e.operator.tokens.push(unknown);
    await expectSameAsRead(a.uuid, unknown, intent.intent_uuid, 401);
    const res = await e2e.api.request("GET", `${intentsPath(a.uuid)}/${intent.intent_uuid}/transfers`, { headers: { authorization: "Bearer garbage" } });
    expectError(res, 401, "AUTH_INVALID_CREDENTIALS");
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });

  it("refuses another merchant's credential and member on the intent's merchant path with 403, as the read does", async () => {
    const intent = await createIntent();
    await expectSameAsRead(a.uuid, b.token, intent.intent_uuid, 403);
    await expectSameAsRead(a.uuid, memberOfB, intent.intent_uuid, 403);
    // Any merchant path but the credential's own, whether it exists or not, before any lookup.
    for (const uuid of [b.uuid, crypto.randomUUID(), "not-a-uuid"]) {
      expectError(await transfers(uuid, a.token, intent.intent_uuid), 403, "FORBIDDEN");
      expectError(await transfers(uuid, a.token, intent.intent_uuid, "?bogus=1"), 403, "FORBIDDEN");
    }
  });

  it("answers 404 for another merchant's intent on one's own path, as for a missing one and as the read does", async () => {
    const intent = await createIntent();
    await record(armed(intent.intent_uuid));
    for (const [merchant, token] of [
      [b.uuid, b.token],
      [b.uuid, memberOfB],
    ] as const) {
      await expectSameAsRead(merchant, token, intent.intent_uuid, 404);
      const other = expectError(await transfers(merchant, token, intent.intent_uuid), 404, "PAY_IN_INTENT_NOT_FOUND");
      const missing = expectError(await transfers(merchant, token, crypto.randomUUID()), 404, "PAY_IN_INTENT_NOT_FOUND");
      expect(other.message).toBe(missing.message);
    }
    await expectSameAsRead(a.uuid, a.token, crypto.randomUUID(), 404);
  });

  it.each(["not-a-uuid", "12345", "ZZZZZZZZ-0000-7000-8000-000000000000"])("answers 404 for the malformed intent uuid %s, as the read does", async (intent) => {
    await expectSameAsRead(a.uuid, a.token, intent, 404);
    expectError(await transfers(a.uuid, a.token, intent), 404, "PAY_IN_INTENT_NOT_FOUND");
  });

  it("takes path UUIDs in any letter case", async () => {
    const intent = await createIntent();
    const res = await transfers(a.uuid.toUpperCase(), a.token, intent.intent_uuid.toUpperCase());
    expect(res.status, res.text).toBe(200);
    expect(res.body.intent_uuid).toBe(intent.intent_uuid);
  });

  it("takes limit and offset as every list does, and refuses other query parameters with 400", async () => {
    const intent = await createIntent();
    for (const query of ["?expand=all", "?state=settled"]) {
      expectError(await transfers(a.uuid, a.token, intent.intent_uuid, query), 400, "VALIDATION_ERROR");
    }
    for (const query of ["?limit=0", "?limit=101", "?limit=x", "?offset=-1"]) {
      const list = expectError(await e2e.api.request("GET", `${intentsPath(a.uuid)}${query}`, { token: a.token }), 400, "VALIDATION_ERROR");
      const listed = expectError(await transfers(a.uuid, a.token, intent.intent_uuid, query), 400, "VALIDATION_ERROR");
      expect(listed.message).toBe(list.message);
    }
  });

  it("answers only GET (and HEAD) on the path", async () => {
    const intent = await createIntent();
    const res = await e2e.api.request("POST", `${intentsPath(a.uuid)}/${intent.intent_uuid}/transfers`, { token: a.token, json: {} });
    expectError(res, 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")?.split(/,\s*/).sort()).toEqual(["GET", "HEAD"]);
  });
});

describe("the read, create and list answers", () => {
  it("keep exactly their fields once an intent has transfers", async () => {
    const intent = await createIntent();
    await record(armed(intent.intent_uuid), transfer(intent.intent_uuid, intent.address, { amountBaseUnits: "1", blockNumber: 900, blockTime: recentBlockTime(), state: TransferState.PENDING }));
    const read = await e2e.api.read(a.uuid, a.token, intent.intent_uuid);
    expectKeys(read.body, READ_KEYS);
    const list = await e2e.api.list(a.uuid, a.token, "limit=1");
    expect(list.body.data[0].intent_uuid).toBe(intent.intent_uuid);
    expect(list.body.data[0]).not.toHaveProperty("received_amount");
  });
});
