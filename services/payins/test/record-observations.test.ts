import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import type { MikroORM } from "@payin/db";
import { uuidv7 } from "@payin/ids";
import { payinsV1 } from "@payin/proto";
import { Code, toTimestamp } from "@payin/rpc";
import { expectFailure } from "@payin/testing";
import { startPayinsHarness } from "./harness.js";
import type { AddressAllocator, MerchantDirectory } from "../src/domain/create-pay-in-intent.js";

const { PayInStatus, TransferState } = payinsV1;

type ObservationInit = MessageInitShape<typeof payinsV1.ObservationSchema>;
type TransferInit = MessageInitShape<typeof payinsV1.ObservedTransferSchema>;

// Every merchant may take pay-ins; every intent gets an address of its own (the same one again for the same intent).
const merchants: MerchantDirectory = {
  payinContext: async () => ({ status: "active", ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "live", providerConnected: true, providerConnectedInJurisdiction: true }),
};
const addresses = new Map<string, string>();
const allocator: AddressAllocator = {
  allocate: async (_merchant, intentUuid) => {
    if (!addresses.has(intentUuid)) addresses.set(intentUuid, `0x${randomBytes(20).toString("hex")}`);
    return { address: addresses.get(intentUuid)!, reference: `m/44'/60'/0'/0/${addresses.size}` };
  },
};

let orm: MikroORM;
let client: Client<typeof payinsV1.PayinsService>;

beforeAll(async () => {
  ({ orm, client } = await startPayinsHarness({ merchants, allocator }));
});

afterAll(async () => {
  await orm?.close();
});

/** Whole milliseconds: the precision timestamps are kept in. */
const deadline = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000);
const inTime = new Date(deadline.getTime() - 600_000);

interface Intent {
  merchantUuid: string;
  intentUuid: string;
  address: string;
}

/** Creates an intent through the RPC: usdt on bep20 (18 decimals) by default. */
async function createIntent(asset = "usdt", amount = "10.5"): Promise<Intent> {
  const merchantUuid = uuidv7();
  const { intent } = await client.createPayInIntent({
    merchantUuid,
    idempotencyKey: `order-${uuidv7()}`,
    asset,
    amount,
    jurisdiction: "DE",
    expiresAt: toTimestamp(deadline),
  });
  expect(intent?.status).toBe(PayInStatus.CREATED);
  return { merchantUuid, intentUuid: intent!.intentUuid, address: intent!.address!.toLowerCase() };
}

/** A 0x and 64 lower-case hex digits hash, one per seed. */
const hex64 = (seed: string) => `0x${createHash("sha256").update(seed).digest("hex")}`;
/** The hash of the intent's transaction named `tx`: the same name under two intents is two transactions. */
const txHashOf = (intent: Intent, tx: string) => hex64(`${intent.intentUuid} ${tx}`);

const armed = (intent: Intent, rail = "bep20"): ObservationInit => ({
  intentUuid: intent.intentUuid,
  event: { case: "armed", value: { rail, chainId: 56n, fromBlock: 1_000n } },
});

/** A settled usdt transfer on bep20 to the intent's address, in time, changed by `over`. */
const transfer = (intent: Intent, tx: string, amountBaseUnits: string, over: Partial<TransferInit> = {}): ObservationInit => ({
  intentUuid: intent.intentUuid,
  event: {
    case: "transfer",
    value: {
      rail: "bep20",
      chainId: 56n,
      txHash: txHashOf(intent, tx),
      logIndex: 0,
      asset: "usdt",
      decimals: 18,
      amountBaseUnits,
      fromAddress: `0x${"12".repeat(20)}`,
      toAddress: intent.address,
      blockNumber: 1_010n,
      blockHash: hex64(`${intent.intentUuid} block ${tx}`),
      blockTime: toTimestamp(inTime),
      state: TransferState.SETTLED,
      version: 1,
      dust: false,
      vanished: false,
      ...over,
    } as TransferInit,
  },
});

/** 10.5 usdt in base units (18 decimals). */
const FULL = "10500000000000000000";

async function statusOf(intent: Intent) {
  const { intent: read } = await client.getPayInIntent({ merchantUuid: intent.merchantUuid, intentUuid: intent.intentUuid });
  return read!;
}

/** The intent's rows in pay_in_transfers, as stored. */
async function rowsOf(intentUuid: string): Promise<{ tx_hash: string; log_index: number; state: string; version: number; amount: string }[]> {
  return orm.em
    .getConnection()
    .execute(
      `select trim(tx_hash) as tx_hash, log_index, state, version, amount::text as amount from pay_in_transfers where intent_uuid = ? order by block_number, log_index`,
      [intentUuid],
    );
}

const answer = (intent: Intent, paid: boolean) => ({ intentUuid: intent.intentUuid, known: true, expiresAt: toTimestamp(deadline), paid });

/** A call's answers, as plain objects. */
const watchStates = ({ intents }: payinsV1.RecordObservationsResponse) =>
  intents.map(({ intentUuid, known, expiresAt, paid }) => ({ intentUuid, known, expiresAt, paid }));

describe("PayinsService.RecordObservations", () => {
  it("moves an intent to awaiting payment when armed, keeps it there while pending, and pays it once settled", async () => {
    const intent = await createIntent();

    const onArmed = await client.recordObservations({ observations: [armed(intent)] });
    expect(watchStates(onArmed)).toEqual([answer(intent, false)]);
    expect((await statusOf(intent)).status).toBe(PayInStatus.AWAITING_PAYMENT);

    const pending = transfer(intent, "tx-a", FULL, { state: TransferState.PENDING, version: 1 });
    const onPending = await client.recordObservations({ observations: [pending] });
    expect(watchStates(onPending)).toEqual([answer(intent, false)]);
    expect((await statusOf(intent)).status).toBe(PayInStatus.AWAITING_PAYMENT);

    const settled = transfer(intent, "tx-a", FULL, { state: TransferState.SETTLED, version: 2 });
    const onSettled = await client.recordObservations({ observations: [settled] });
    expect(watchStates(onSettled)).toEqual([answer(intent, true)]);
    const paid = await statusOf(intent);
    expect(paid.status).toBe(PayInStatus.PAID);
    expect(await rowsOf(intent.intentUuid)).toEqual([{ tx_hash: txHashOf(intent, "tx-a"), log_index: 0, state: "settled", version: 2, amount: FULL }]);

    // Replaying all of it changes nothing: one row, still settled, the intent untouched.
    const replay = await client.recordObservations({ observations: [armed(intent), pending, settled, armed(intent), pending] });
    expect(watchStates(replay)).toEqual([answer(intent, true)]);
    expect(await statusOf(intent)).toEqual(paid);
    expect(await rowsOf(intent.intentUuid)).toEqual([{ tx_hash: txHashOf(intent, "tx-a"), log_index: 0, state: "settled", version: 2, amount: FULL }]);

    // An older version after a newer one is ignored; a later orphaned report is kept as evidence, and paid is final.
    await client.recordObservations({ observations: [transfer(intent, "tx-a", FULL, { state: TransferState.PENDING, version: 1 })] });
    expect((await rowsOf(intent.intentUuid))[0]).toMatchObject({ state: "settled", version: 2 });
    await client.recordObservations({ observations: [transfer(intent, "tx-a", FULL, { state: TransferState.ORPHANED, version: 3, vanished: true })] });
    expect((await rowsOf(intent.intentUuid))[0]).toMatchObject({ state: "orphaned", version: 3 });
    expect((await statusOf(intent)).status).toBe(PayInStatus.PAID);
    // It had settled and was reversed below the settled point: the evidence says so, and it no longer counts.
    const listed = await client.listPayInTransfers({ merchantUuid: intent.merchantUuid, intentUuid: intent.intentUuid });
    expect(listed.transfers.map((t) => [t.state, t.vanished])).toEqual([[TransferState.ORPHANED, true]]);
    expect(listed.receivedAmount).toBe("0");
  });

  it("ignores an older version reported after a newer one", async () => {
    const intent = await createIntent();
    await client.recordObservations({ observations: [transfer(intent, "tx-b", FULL, { state: TransferState.ORPHANED, version: 2 })] });
    // Version 1 saw it settled in the block that was later reorganised out: it must not pay the intent.
    const stale = await client.recordObservations({ observations: [transfer(intent, "tx-b", FULL, { state: TransferState.SETTLED, version: 1 })] });
    expect(watchStates(stale)).toEqual([answer(intent, false)]);
    expect((await statusOf(intent)).status).toBe(PayInStatus.AWAITING_PAYMENT);
    expect(await rowsOf(intent.intentUuid)).toEqual([{ tx_hash: txHashOf(intent, "tx-b"), log_index: 0, state: "orphaned", version: 2, amount: FULL }]);
  });

  it("pays an intent on two partial transfers that add up, not on either alone", async () => {
    const intent = await createIntent("usdc", "12.5");
    const usdc = (tx: string, amount: string): ObservationInit =>
      transfer(intent, tx, amount, { rail: "erc20", chainId: 1n, asset: "usdc", decimals: 6 });
    const first = await client.recordObservations({ observations: [usdc("part-1", "5000000")] });
    expect(first.intents[0]!.paid).toBe(false);
    expect((await statusOf(intent)).status).toBe(PayInStatus.AWAITING_PAYMENT);
    const second = await client.recordObservations({ observations: [usdc("part-2", "7500000")] });
    expect(second.intents[0]!.paid).toBe(true);
    expect((await statusOf(intent)).status).toBe(PayInStatus.PAID);
  });

  it("lists the evidence with its flags and the received and pending amounts in token units", async () => {
    const intent = await createIntent();
    const late = new Date(deadline.getTime() + 1);
    const at = (block: bigint, logIndex = 0) => ({ blockNumber: block, logIndex });
    await client.recordObservations({
      observations: [
        armed(intent),
        transfer(intent, "partial", "4000000000000000000", at(1_001n)),
        transfer(intent, "pending", "3250000000000000000", { ...at(1_002n), state: TransferState.PENDING }),
        transfer(intent, "late", FULL, { ...at(1_003n), blockTime: toTimestamp(late) }),
        transfer(intent, "usdc", FULL, { ...at(1_004n), asset: "usdc" }),
        transfer(intent, "erc20", "10500000", { ...at(20_000_000n), rail: "erc20", chainId: 1n, decimals: 6 }),
        transfer(intent, "dust", "0", { ...at(1_004n, 3), dust: true }),
        transfer(intent, "orphaned", FULL, { ...at(1_000n), state: TransferState.ORPHANED, version: 2 }),
        // Exactly at the deadline is in time.
        transfer(intent, "at-deadline", "1000000000000000000", { ...at(1_005n), blockTime: toTimestamp(deadline) }),
      ],
    });
    expect((await statusOf(intent)).status).toBe(PayInStatus.AWAITING_PAYMENT);

    const listed = await client.listPayInTransfers({ merchantUuid: intent.merchantUuid, intentUuid: intent.intentUuid });
    expect({ asset: listed.asset, rail: listed.rail, expected: listed.expectedAmount, received: listed.receivedAmount, pending: listed.pendingAmount }).toEqual({
      asset: "usdt",
      rail: "bep20",
      expected: "10.5",
      received: "5",
      pending: "3.25",
    });
    const none = { late: false, wrongNetwork: false, wrongToken: false, dust: false };
    expect(
      listed.transfers.map((t) => ({
        txHash: t.txHash,
        amount: t.amount,
        state: t.state,
        flags: { late: t.late, wrongNetwork: t.wrongNetwork, wrongToken: t.wrongToken, dust: t.dust },
      })),
    ).toEqual([
      { txHash: txHashOf(intent, "orphaned"), amount: "10.5", state: TransferState.ORPHANED, flags: none },
      { txHash: txHashOf(intent, "partial"), amount: "4", state: TransferState.SETTLED, flags: none },
      { txHash: txHashOf(intent, "pending"), amount: "3.25", state: TransferState.PENDING, flags: none },
      { txHash: txHashOf(intent, "late"), amount: "10.5", state: TransferState.SETTLED, flags: { ...none, late: true } },
      { txHash: txHashOf(intent, "usdc"), amount: "10.5", state: TransferState.SETTLED, flags: { ...none, wrongToken: true } },
      { txHash: txHashOf(intent, "dust"), amount: "0", state: TransferState.SETTLED, flags: { ...none, dust: true } },
      { txHash: txHashOf(intent, "at-deadline"), amount: "1", state: TransferState.SETTLED, flags: none },
      { txHash: txHashOf(intent, "erc20"), amount: "10.5", state: TransferState.SETTLED, flags: { ...none, wrongNetwork: true } },
    ]);
    const partial = listed.transfers[1]!;
    expect(partial).toMatchObject({ rail: "bep20", chainId: 56n, asset: "usdt", logIndex: 0, blockNumber: 1_001n, fromAddress: `0x${"12".repeat(20)}` });
    expect(partial.blockTime).toEqual(toTimestamp(inTime));
  });

  it("answers known:false for an intent it does not know, in the order intents were first named", async () => {
    const intent = await createIntent();
    const stranger = { merchantUuid: uuidv7(), intentUuid: uuidv7(), address: `0x${"34".repeat(20)}` };
    const res = await client.recordObservations({
      observations: [transfer(stranger, "stranger", FULL), armed(intent), armed(stranger)],
    });
    expect(watchStates(res)).toEqual([{ intentUuid: stranger.intentUuid, known: false, expiresAt: undefined, paid: false }, answer(intent, false)]);
    expect(await rowsOf(stranger.intentUuid)).toEqual([]);
    expect((await statusOf(intent)).status).toBe(PayInStatus.AWAITING_PAYMENT);
  });

  describe("a malformed call", () => {
    const malformed: [string, (intent: Intent) => ObservationInit][] = [
      ["a tx hash in upper case", (i) => transfer(i, "bad", "1", { txHash: `0x${"AB".repeat(32)}` })],
      ["a short tx hash", (i) => transfer(i, "bad", "1", { txHash: "0x1234" })],
      ["a bad block hash", (i) => transfer(i, "bad", "1", { blockHash: "not a hash" })],
      ["an unknown rail on a transfer", (i) => transfer(i, "bad", "1", { rail: "trc20" })],
      ["an unknown rail on an armed event", (i) => armed(i, "trc20")],
      ["an unknown asset", (i) => transfer(i, "bad", "1", { asset: "doge" })],
      ["an amount with a decimal point", (i) => transfer(i, "bad", "1.5")],
      ["a negative amount", (i) => transfer(i, "bad", "-1")],
      ["an amount in exponent form", (i) => transfer(i, "bad", "1e18")],
      ["an empty amount", (i) => transfer(i, "bad", "")],
      ["an amount of 79 digits", (i) => transfer(i, "bad", "1".repeat(79))],
      ["no state", (i) => transfer(i, "bad", "1", { state: TransferState.UNSPECIFIED })],
      ["no block time", (i) => transfer(i, "bad", "1", { blockTime: undefined })],
      ["version 0", (i) => transfer(i, "bad", "1", { version: 0 })],
      ["more than 36 decimals", (i) => transfer(i, "bad", "1", { decimals: 37 })],
      ["a bad sender address", (i) => transfer(i, "bad", "1", { fromAddress: "0x12" })],
      ["a log index past 2^31 - 1", (i) => transfer(i, "bad", "1", { logIndex: 2 ** 31 })],
      ["a version past 2^31 - 1", (i) => transfer(i, "bad", "1", { version: 2 ** 31 })],
      ["a block number past 2^63 - 1", (i) => transfer(i, "bad", "1", { blockNumber: 2n ** 63n })],
      ["no event", (i) => ({ intentUuid: i.intentUuid })],
      ["no intent uuid", () => ({ intentUuid: "", event: { case: "armed", value: { rail: "bep20", chainId: 56n, fromBlock: 1n } } })],
    ];

    it.each(malformed)("with %s is refused with VALIDATION_ERROR, recording nothing of the call", async (_what, bad) => {
      const intent = await createIntent();
      const valid = [armed(intent), transfer(intent, "valid", FULL)];
      await expectFailure(client.recordObservations({ observations: [...valid, bad(intent)] }), Code.InvalidArgument, "VALIDATION_ERROR");
      expect((await statusOf(intent)).status).toBe(PayInStatus.CREATED);
      expect(await rowsOf(intent.intentUuid)).toEqual([]);
      // The same valid observations alone are recorded.
      expect(watchStates(await client.recordObservations({ observations: valid }))).toEqual([answer(intent, true)]);
    });

    it("with no observations or more than 1,000 is refused with VALIDATION_ERROR, recording nothing", async () => {
      const intent = await createIntent();
      await expectFailure(client.recordObservations({ observations: [] }), Code.InvalidArgument, "VALIDATION_ERROR");
      const many = [transfer(intent, "valid", FULL), ...Array<ObservationInit>(1_000).fill(armed(intent))];
      await expectFailure(client.recordObservations({ observations: many }), Code.InvalidArgument, "VALIDATION_ERROR");
      expect((await statusOf(intent)).status).toBe(PayInStatus.CREATED);
      expect(await rowsOf(intent.intentUuid)).toEqual([]);
      expect(watchStates(await client.recordObservations({ observations: many.slice(0, 1_000) }))).toEqual([answer(intent, true)]);
    });
  });

  it("keeps one row per transfer and counts the intent once, under paid, when 20 calls report the same transfers at once", async () => {
    const intent = await createIntent();
    const first = transfer(intent, "race-1", "6000000000000000000", { blockNumber: 1_001n });
    const second = transfer(intent, "race-2", "4500000000000000000", { blockNumber: 1_002n });
    const calls = Array.from({ length: 20 }, (_, n) => {
      const observations = [first];
      if (n % 3 === 0) observations.push(second);
      if (n % 2 === 0) observations.unshift(armed(intent));
      return observations;
    });
    const answers = await Promise.all(calls.map((observations) => client.recordObservations({ observations })));

    for (const [n, { intents }] of answers.entries()) {
      expect(intents).toHaveLength(1);
      expect(intents[0]).toMatchObject({ intentUuid: intent.intentUuid, known: true });
      // A call that carried both partials saw them both recorded.
      if (n % 3 === 0) expect(intents[0]!.paid).toBe(true);
    }
    expect(await rowsOf(intent.intentUuid)).toEqual([
      { tx_hash: txHashOf(intent, "race-1"), log_index: 0, state: "settled", version: 1, amount: "6000000000000000000" },
      { tx_hash: txHashOf(intent, "race-2"), log_index: 0, state: "settled", version: 1, amount: "4500000000000000000" },
    ]);
    expect((await statusOf(intent)).status).toBe(PayInStatus.PAID);

    // The trigger-kept counts: the merchant's one intent, under paid only.
    const total = async (status: payinsV1.PayInStatus) =>
      (await client.listPayInIntents({ merchantUuid: intent.merchantUuid, limit: 100, status })).total;
    expect({
      all: await total(PayInStatus.UNSPECIFIED),
      created: await total(PayInStatus.CREATED),
      awaiting: await total(PayInStatus.AWAITING_PAYMENT),
      paid: await total(PayInStatus.PAID),
    }).toEqual({ all: 1n, created: 0n, awaiting: 0n, paid: 1n });
    const { intents } = await client.listPayInIntents({ merchantUuid: intent.merchantUuid, limit: 100, status: PayInStatus.PAID });
    expect(intents.map((i) => i.intentUuid)).toEqual([intent.intentUuid]);
  });
});

describe("PayinsService.ListPayInTransfers after paid", () => {
  /** The listing's amounts and each transfer's state and after-paid flag, by the names the test gave them. */
  async function listing(intent: Intent, names: string[]) {
    const res = await client.listPayInTransfers({ merchantUuid: intent.merchantUuid, intentUuid: intent.intentUuid });
    const nameOf = new Map(names.map((n) => [txHashOf(intent, n), n]));
    return {
      received: res.receivedAmount,
      pending: res.pendingAmount,
      afterPaid: res.afterPaidAmount,
      transfers: res.transfers.map((t) => [nameOf.get(t.txHash), t.state, t.afterPaid]),
    };
  }
  const names = ["pays", "seen-before", "again"];
  const storedFlags = async (intent: Intent) => {
    const rows: { tx_hash: string; after_paid: boolean }[] = await orm.em
      .getConnection()
      .execute(`select trim(tx_hash) as tx_hash, after_paid from pay_in_transfers where intent_uuid = ? order by block_number`, [intent.intentUuid]);
    return rows.map((r) => [r.tx_hash, r.after_paid]);
  };

  it("records a payment made after paid as after paid, gives its amount back once settled, keeps the flag through its states, and never moves the status", async () => {
    const intent = await createIntent();
    const seenBefore = (over: Partial<TransferInit>) => transfer(intent, "seen-before", "1000000000000000000", { blockNumber: 1_011n, ...over });
    await client.recordObservations({
      observations: [armed(intent), transfer(intent, "pays", FULL), seenBefore({ state: TransferState.PENDING })],
    });
    expect((await statusOf(intent)).status).toBe(PayInStatus.PAID);
    expect(await listing(intent, names)).toEqual({
      received: "10.5",
      pending: "1",
      afterPaid: "0",
      transfers: [
        ["pays", TransferState.SETTLED, false],
        ["seen-before", TransferState.PENDING, false],
      ],
    });
    const paidAt = (await statusOf(intent)).updatedAt;

    // The payer pays again: seen while the intent is paid.
    const again = (over: Partial<TransferInit>) => transfer(intent, "again", FULL, { blockNumber: 1_020n, ...over });
    const res = await client.recordObservations({ observations: [again({ state: TransferState.PENDING, version: 1 }), seenBefore({ version: 2 })] });
    expect(watchStates(res)).toEqual([answer(intent, true)]);
    expect(await listing(intent, names)).toEqual({
      // What was seen before paid and settles after is an over-payment, received; the new one is not given back before it settles.
      received: "11.5",
      pending: "0",
      afterPaid: "0",
      transfers: [
        ["pays", TransferState.SETTLED, false],
        ["seen-before", TransferState.SETTLED, false],
        ["again", TransferState.PENDING, true],
      ],
    });
    await client.recordObservations({ observations: [again({ version: 2 })] });
    expect(await listing(intent, names)).toMatchObject({ received: "11.5", pending: "0", afterPaid: "10.5", transfers: expect.arrayContaining([["again", TransferState.SETTLED, true]]) });
    expect(await storedFlags(intent)).toEqual([
      [txHashOf(intent, "pays"), false],
      [txHashOf(intent, "seen-before"), false],
      [txHashOf(intent, "again"), true],
    ]);
    // Reorganised out: still after paid, nothing to give back.
    await client.recordObservations({ observations: [again({ state: TransferState.ORPHANED, version: 3 })] });
    expect(await listing(intent, names)).toMatchObject({ afterPaid: "0", transfers: expect.arrayContaining([["again", TransferState.ORPHANED, true]]) });
    const read = await statusOf(intent);
    expect(read.status).toBe(PayInStatus.PAID);
    expect(read.updatedAt).toEqual(paidAt);
  });
});

describe("PayinsService.ListPayInTransfers in pages", () => {
  it("pages 300 zero-value transfers and a payment in a total order, with the amounts and counts over every transfer", async () => {
    const intent = await createIntent();
    const spam = Array.from({ length: 300 }, (_, n) =>
      transfer(intent, `spam-${n}`, "0", { dust: true, blockNumber: 1_000n + BigInt(Math.floor(n / 4)), logIndex: n % 2 }),
    );
    await client.recordObservations({
      observations: [armed(intent), transfer(intent, "part", "5000000000000000000", { blockNumber: 999n }), ...spam],
    });
    const page = (limit: number, offset: number) =>
      client.listPayInTransfers({ merchantUuid: intent.merchantUuid, intentUuid: intent.intentUuid, limit, offset });

    const first = await page(10, 0);
    expect(first.transfers).toHaveLength(10);
    expect({ total: first.total, dust: first.dustCount, received: first.receivedAmount, pending: first.pendingAmount }).toEqual({
      total: 301n,
      dust: 300n,
      received: "5",
      pending: "0",
    });
    expect(first.transfers[0]).toMatchObject({ txHash: txHashOf(intent, "part"), amount: "5", dust: false });

    // Pages of 64 cover every transfer once, oldest block first, ties in a stable order.
    const seen: payinsV1.PayInTransfer[] = [];
    for (let offset = 0; offset < 301; offset += 64) {
      const { transfers, total } = await page(64, offset);
      expect(total).toBe(301n);
      seen.push(...transfers);
    }
    expect(seen).toHaveLength(301);
    expect(new Set(seen.map((t) => t.txHash)).size).toBe(301);
    const keys = seen.map((t) => [t.blockNumber, t.logIndex, t.txHash] as const);
    const sorted = [...keys].sort((x, y) => (x[0] !== y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] !== y[1] ? x[1] - y[1] : x[2] < y[2] ? -1 : 1));
    expect(keys).toEqual(sorted);

    // Past the end: no transfer, the same total and amounts.
    const past = await page(10, 301);
    expect({ n: past.transfers.length, total: past.total, received: past.receivedAmount }).toEqual({ n: 0, total: 301n, received: "5" });
    // No limit: up to 1,000, here every one.
    expect((await client.listPayInTransfers({ merchantUuid: intent.merchantUuid, intentUuid: intent.intentUuid })).transfers).toHaveLength(301);
    // Above 1,000: refused.
    await expectFailure(page(1_001, 0), Code.InvalidArgument, "VALIDATION_ERROR");
  });
});
