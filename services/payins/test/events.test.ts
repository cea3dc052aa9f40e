import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Client } from "@connectrpc/connect";
import { sql, type Database, type MikroORM } from "@payin/db";
import { checkoutView, intentReadView, isEventType, transferView, type EventData, type EventType } from "@payin/events";
import { uuidv7 } from "@payin/ids";
import { payinsV1, type notificationsV1 } from "@payin/proto";
import { Code, ConnectError, toTimestamp } from "@payin/rpc";
import { startPayinsHarness } from "./harness.js";
import type { AddressAllocator, MerchantDirectory, PayinContext } from "../src/domain/create-pay-in-intent.js";
import type { OutboxEvent } from "../src/events/outbox-events.js";
import { relayOnce, startEventRelay, type RefusedEvent } from "../src/events/relay.js";
import { CheckoutRepository } from "../src/store/checkout-repository.js";
import { tellPassedDeadlines } from "../src/store/deadline-store.js";
import { writeEvents } from "../src/store/event-outbox.js";

const { PayInStatus, TransferState } = payinsV1;

type TransferInit = MessageInitShape<typeof payinsV1.ObservedTransferSchema>;

/** Merchants' statuses; any merchant not named is active and ready. */
const statuses = new Map<string, string>();
const merchants: MerchantDirectory = {
  payinContext: async (merchantUuid): Promise<PayinContext> => ({
    status: statuses.get(merchantUuid) ?? "active", ruleEffect: "allow", payinPolicyEffect: "allow", operatingMode: "live", providerConnected: true, providerConnectedInJurisdiction: true,
  }),
};
const addresses = new Map<string, string>();
const allocator: AddressAllocator = {
  allocate: async (_merchant, intentUuid) => {
    if (!addresses.has(intentUuid)) addresses.set(intentUuid, `0x${randomBytes(20).toString("hex")}`);
    return { address: addresses.get(intentUuid)!, reference: `m/44'/60'/0'/0/${addresses.size}` };
  },
};

let orm: MikroORM;
let db: Database;
let client: Client<typeof payinsV1.PayinsService>;

beforeAll(async () => {
  ({ orm, db, client } = await startPayinsHarness({ merchants, allocator, checkoutPaymentWindowS: 600 }));
});

afterAll(async () => {
  await orm?.close();
});

/** Whole seconds: the precision timestamps are kept in, and more. */
const deadline = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000);
const inTime = new Date(deadline.getTime() - 600_000);
/** 10.5 usdt in base units (18 decimals). */
const FULL = "10500000000000000000";
const HALF = "5250000000000000000";

interface OutboxRow {
  event_uuid: string;
  merchant_uuid: string;
  type: string;
  sequence: string;
  intent_uuid: string | null;
  checkout_uuid: string | null;
  created_at: string;
  data: string;
}

const OUTBOX_OF_INTENT = sql<OutboxRow>(`select * from event_outbox where intent_uuid = $1 and checkout_uuid is null order by sequence`);
const OUTBOX_OF_CHECKOUT = sql<OutboxRow>(`select * from event_outbox where checkout_uuid = $1 order by sequence`);

/** An intent's events in the outbox, by sequence: type, sequence and data parsed. */
async function intentEvents(intentUuid: string) {
  return (await db.query(OUTBOX_OF_INTENT, [intentUuid])).map(parsed);
}

async function checkoutEvents(checkoutUuid: string) {
  return (await db.query(OUTBOX_OF_CHECKOUT, [checkoutUuid])).map(parsed);
}

function parsed(row: OutboxRow) {
  const data = JSON.parse(row.data) as EventData;
  // The row's columns and its data agree.
  expect(data).toMatchObject({ id: row.event_uuid, type: row.type, merchant_uuid: row.merchant_uuid, sequence: Number(row.sequence) });
  expect(new Date(data.created_at)).toEqual(new Date(row.created_at));
  return { type: row.type, sequence: Number(row.sequence), data };
}

const types = (events: { type: string }[]) => events.map((e) => e.type.replace(/^(pay_in_intent|checkout)\./, ""));

async function createIntent(merchantUuid = uuidv7(), expiresAt = deadline) {
  const { intent } = await client.createPayInIntent({
    merchantUuid, idempotencyKey: `order-${uuidv7()}`, asset: "usdt", amount: "10.5", jurisdiction: "DE", expiresAt: toTimestamp(expiresAt),
  });
  return intent!;
}

const hex64 = (seed: string) => `0x${createHash("sha256").update(seed).digest("hex")}`;

const armed = (intentUuid: string) => ({ intentUuid, event: { case: "armed" as const, value: { rail: "bep20", chainId: 56n, fromBlock: 1_000n } } });

/** A usdt transfer on bep20 to the intent's address, in time, settled, version 1, changed by `over`. */
function transfer(intent: payinsV1.PayInIntent, tx: string, amountBaseUnits: string, over: Partial<TransferInit> = {}) {
  return {
    intentUuid: intent.intentUuid,
    event: {
      case: "transfer" as const,
      value: {
        rail: "bep20", chainId: 56n, txHash: hex64(`${intent.intentUuid} ${tx}`), logIndex: 0, asset: "usdt", decimals: 18, amountBaseUnits,
        fromAddress: `0x${"12".repeat(20)}`, toAddress: intent.address!.toLowerCase(), blockNumber: 1_010n, blockHash: hex64(`${intent.intentUuid} block ${tx}`),
        blockTime: toTimestamp(inTime), state: TransferState.SETTLED, version: 1, dust: false, vanished: false, ...over,
      } as TransferInit,
    },
  };
}

async function read(intent: payinsV1.PayInIntent) {
  return (await client.getPayInIntent({ merchantUuid: intent.merchantUuid, intentUuid: intent.intentUuid })).intent!;
}

async function transfersOf(intent: payinsV1.PayInIntent) {
  return (await client.listPayInTransfers({ merchantUuid: intent.merchantUuid, intentUuid: intent.intentUuid })).transfers;
}

describe("events of creates", () => {
  it("writes pay_in_intent.created, sequence 1, with the intent as its read shows it; a replay writes nothing", async () => {
    const merchantUuid = uuidv7();
    const key = `order-${uuidv7()}`;
    const req = { merchantUuid, idempotencyKey: key, asset: "usdt", amount: "10.5", jurisdiction: "DE", expiresAt: toTimestamp(deadline) };
    const { intent } = await client.createPayInIntent(req);
    const events = await intentEvents(intent!.intentUuid);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "pay_in_intent.created", sequence: 1 });
    expect(events[0]!.data.pay_in_intent).toEqual(intentReadView(await read(intent!)));
    expect(events[0]!.data.created_at).toBe(intentReadView(intent!).created_at);
    expect(await client.createPayInIntent(req)).toMatchObject({ replayed: true });
    expect(await intentEvents(intent!.intentUuid)).toHaveLength(1);
  });

  it("writes one created event per intent of a batch create (the batched statement)", async () => {
    const merchantUuid = uuidv7();
    const requests = Array.from({ length: 5 }, (_, i) => ({
      merchantUuid, idempotencyKey: `batch-${uuidv7()}-${i}`, asset: "usdt", amount: `${i + 1}`, jurisdiction: "DE", expiresAt: toTimestamp(deadline),
    }));
    const { results } = await client.batchCreatePayInIntents({ requests });
    for (const result of results) {
      expect(result.outcome.case).toBe("created");
      const created = result.outcome.value as payinsV1.CreatePayInIntentResponse;
      const events = await intentEvents(created.intent!.intentUuid);
      expect(events.map((e) => [e.type, e.sequence])).toEqual([["pay_in_intent.created", 1]]);
      expect(events[0]!.data.pay_in_intent).toEqual(intentReadView(created.intent!));
    }
  });

  it("writes nothing for a refused create", async () => {
    const merchantUuid = uuidv7();
    statuses.set(merchantUuid, "suspended");
    await expect(createIntent(merchantUuid)).rejects.toThrow(/suspended/);
    const rows = await db.query(sql<{ n: string }>(`select count(*) as n from event_outbox where merchant_uuid = $1`), [merchantUuid]);
    expect(Number(rows[0]!.n)).toBe(0);
  });
});

describe("events of observations", () => {
  it("tells a whole payment in order, numbered from 1 with no gaps, and a replay tells nothing again", async () => {
    const intent = await createIntent();
    await client.recordObservations({ observations: [armed(intent.intentUuid)] });
    const pending = transfer(intent, "a", FULL, { state: TransferState.PENDING, version: 1 });
    await client.recordObservations({ observations: [pending] });
    const settled = transfer(intent, "a", FULL, { state: TransferState.SETTLED, version: 2 });
    await client.recordObservations({ observations: [settled] });

    let events = await intentEvents(intent.intentUuid);
    expect(types(events)).toEqual(["created", "awaiting_payment", "transfer_detected", "transfer_settled", "paid"]);
    expect(events.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5]);
    // The resource as a read shows it after the change, and the transfer as the listing shows it.
    const paid = await read(intent);
    expect(paid.status).toBe(PayInStatus.PAID);
    expect(events[4]!.data.pay_in_intent).toEqual(intentReadView(paid));
    const [listed] = await transfersOf(intent);
    expect(events[4]!.data.transfer).toEqual(transferView(listed!));
    expect(events[3]!.data.transfer).toEqual(transferView(listed!));
    expect(events[2]!.data.transfer).toMatchObject({ state: "pending", tx_hash: listed!.txHash });
    expect(events[1]!.data.pay_in_intent).toMatchObject({ status: "awaiting_payment" });

    // Replaying everything (and an older version) changes nothing and tells nothing.
    await client.recordObservations({ observations: [armed(intent.intentUuid), pending, settled, pending] });
    expect(await intentEvents(intent.intentUuid)).toEqual(events);

    // Money after paid is flagged; its vanishing later is told too.
    const again = transfer(intent, "b", HALF);
    await client.recordObservations({ observations: [again] });
    await client.recordObservations({ observations: [transfer(intent, "b", HALF, { state: TransferState.ORPHANED, version: 2, vanished: true })] });
    events = await intentEvents(intent.intentUuid);
    expect(types(events).slice(5)).toEqual(["transfer_flagged", "transfer_orphaned"]);
    expect(events[5]!.data).toMatchObject({ flag: "after_paid", transfer: { amount: "5.25", state: "settled", flags: { after_paid: true } } });
    expect(events[6]!.data.transfer).toMatchObject({ state: "orphaned", flags: { vanished: true } });
    expect(events.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const row = await db.query(sql<{ event_sequence: number }>(`select event_sequence from pay_in_intents where intent_uuid = $1`), [intent.intentUuid]);
    expect(row[0]!.event_sequence).toBe(7);
  });

  it("tells paid with the transfer that completed it when a call pays from created, and flags what does not count", async () => {
    const intent = await createIntent();
    await client.recordObservations({
      observations: [
        transfer(intent, "late", FULL, { blockTime: toTimestamp(new Date(deadline.getTime() + 1_000)) }),
        transfer(intent, "dust", "0", { dust: true }),
        transfer(intent, "one", HALF),
        transfer(intent, "two", HALF),
        transfer(intent, "three", HALF),
      ],
    });
    const events = await intentEvents(intent.intentUuid);
    expect(types(events)).toEqual([
      "created", "awaiting_payment", "transfer_flagged", "transfer_flagged", "transfer_settled", "transfer_settled", "transfer_settled", "paid",
    ]);
    expect(events.map((e) => e.data.flag)).toEqual([undefined, undefined, "late", "dust", undefined, undefined, undefined, undefined]);
    expect(events[7]!.data.transfer?.tx_hash).toBe(hex64(`${intent.intentUuid} two`));
    expect(events[7]!.data.pay_in_intent?.status).toBe("paid");
  });

  it("writes no event of a recording that fails", async () => {
    const intent = await createIntent();
    // Two counting transfers with different decimals fail the whole recording of the intent.
    await expect(
      client.recordObservations({ observations: [armed(intent.intentUuid), transfer(intent, "a", "1"), transfer(intent, "b", "1", { decimals: 6 })] }),
    ).rejects.toThrow();
    expect(types(await intentEvents(intent.intentUuid))).toEqual(["created"]);
    expect((await read(intent)).status).toBe(PayInStatus.CREATED);
  });

  it("numbers the events of concurrent recordings for one intent with no gaps or repeats", async () => {
    const intent = await createIntent();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => client.recordObservations({ observations: [transfer(intent, `t${i}`, "1000", { state: TransferState.PENDING })] })),
    );
    const events = await intentEvents(intent.intentUuid);
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(types(events).filter((t) => t === "transfer_detected")).toHaveLength(10);
  });
});

describe("deadline events", () => {
  it("tells an unpaid and an underpaid intent once, with what was received, even with two scanners racing; never a paid one", async () => {
    const unpaid = await createIntent();
    const underpaid = await createIntent();
    const paid = await createIntent();
    await client.recordObservations({ observations: [armed(unpaid.intentUuid), transfer(underpaid, "a", HALF), transfer(paid, "a", FULL)] });
    const before = await intentEvents(unpaid.intentUuid);

    // Not yet due: nothing.
    await tellPassedDeadlines(db, new Date(deadline.getTime() - 1), 1000);
    expect(await intentEvents(unpaid.intentUuid)).toEqual(before);

    const after = new Date(deadline.getTime() + 1_000);
    const told = await Promise.all([tellPassedDeadlines(db, after, 1000), tellPassedDeadlines(db, after, 1000), tellPassedDeadlines(db, after, 2)]);
    expect(told.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(2);
    await tellPassedDeadlines(db, after, 1000);

    const unpaidEvents = await intentEvents(unpaid.intentUuid);
    expect(types(unpaidEvents)).toEqual(["created", "awaiting_payment", "deadline_passed"]);
    expect(unpaidEvents[2]!.data).toMatchObject({ sequence: 3, outcome: "unpaid", received_amount: "0", pay_in_intent: { status: "awaiting_payment" } });
    const underpaidEvents = await intentEvents(underpaid.intentUuid);
    expect(types(underpaidEvents)).toEqual(["created", "awaiting_payment", "transfer_settled", "deadline_passed"]);
    expect(underpaidEvents[3]!.data).toMatchObject({ sequence: 4, outcome: "underpaid", received_amount: "5.25" });
    expect(types(await intentEvents(paid.intentUuid))).not.toContain("deadline_passed");
    // The status did not change.
    expect((await read(unpaid)).status).toBe(PayInStatus.AWAITING_PAYMENT);

    // Told once: later scans tell nothing more.
    await Promise.all([tellPassedDeadlines(db, new Date(after.getTime() + 60_000), 1000), tellPassedDeadlines(db, new Date(after.getTime() + 60_000), 1000)]);
    expect(await intentEvents(unpaid.intentUuid)).toEqual(unpaidEvents);
  });
});

describe("checkout events", () => {
  const session = (merchantUuid: string) =>
    client.createCheckoutSession({ merchantUuid, amount: "10.5", jurisdiction: "DE", pairs: [{ asset: "usdt", rail: "bep20" }], reference: "order-1" });

  it("tells created, started (with the intent) and paid, each checkout numbered from 1, and disabled", async () => {
    const merchantUuid = uuidv7();
    const { session: created, token } = await session(merchantUuid);
    let events = await checkoutEvents(created!.checkoutUuid);
    expect(events.map((e) => [e.type, e.sequence])).toEqual([["checkout.created", 1]]);
    expect(events[0]!.data.checkout).toEqual(checkoutView(created!));

    // Concurrent starts: one intent, started told once.
    const starts = await Promise.all([client.startCheckout({ token }), client.startCheckout({ token }), client.startCheckout({ token })]);
    const intent = starts[0]!.intent!;
    events = await checkoutEvents(created!.checkoutUuid);
    expect(events.map((e) => [e.type, e.sequence])).toEqual([["checkout.created", 1], ["checkout.started", 2]]);
    expect(events[1]!.data.checkout).toMatchObject({ state: "started", intent_uuid: intent.intentUuid });
    expect(events[1]!.data.checkout).toEqual(checkoutView(starts[0]!.session!));
    expect(types(await intentEvents(intent.intentUuid))).toEqual(["created"]);

    // The checkout's intent expires one payment window (10 minutes) after its start: paid in a block of now.
    await client.recordObservations({ observations: [transfer(intent, "a", FULL, { blockTime: toTimestamp(new Date()) })] });
    events = await checkoutEvents(created!.checkoutUuid);
    expect(events.map((e) => [e.type, e.sequence])).toEqual([["checkout.created", 1], ["checkout.started", 2], ["checkout.paid", 3]]);
    expect(events[2]!.data.checkout).toMatchObject({ state: "paid", intent_uuid: intent.intentUuid });
    expect(types(await intentEvents(intent.intentUuid))).toEqual(["created", "awaiting_payment", "transfer_settled", "paid"]);

    const { session: other } = await session(merchantUuid);
    await client.disableCheckoutSession({ merchantUuid, checkoutUuid: other!.checkoutUuid });
    await client.disableCheckoutSession({ merchantUuid, checkoutUuid: other!.checkoutUuid });
    events = await checkoutEvents(other!.checkoutUuid);
    expect(events.map((e) => [e.type, e.sequence])).toEqual([["checkout.created", 1], ["checkout.disabled", 2]]);
    expect(events[1]!.data.checkout).toMatchObject({ state: "disabled" });
  });
});

describe("a checkout whose intent was paid before its start recorded it", () => {
  it("is told started and paid by the start that links it", async () => {
    const merchantUuid = uuidv7();
    const { session } = await client.createCheckoutSession({ merchantUuid, amount: "10.5", jurisdiction: "DE", pairs: [{ asset: "usdt", rail: "bep20" }] });
    // The start's create stored the intent, and a payment was recorded, before the start linked it.
    const intent = await createIntent(merchantUuid);
    await client.recordObservations({ observations: [transfer(intent, "a", FULL)] });
    expect(await new CheckoutRepository(db).link(session!.checkoutUuid, intent.intentUuid, new Date())).toBe(true);
    const events = await checkoutEvents(session!.checkoutUuid);
    expect(events.map((e) => [e.type, e.sequence])).toEqual([["checkout.created", 1], ["checkout.started", 2], ["checkout.paid", 3]]);
    expect(events[2]!.data.checkout).toMatchObject({ state: "paid", intent_uuid: intent.intentUuid });
    // Linked again (a retried start): nothing more.
    expect(await new CheckoutRepository(db).link(session!.checkoutUuid, intent.intentUuid, new Date())).toBe(true);
    expect(await checkoutEvents(session!.checkoutUuid)).toHaveLength(3);
  });
});

describe("a start and a payment recorded at the same moment", () => {
  it("tell the checkout paid exactly once, whichever commits first", async () => {
    const merchantUuid = uuidv7();
    const rounds = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const { session } = await client.createCheckoutSession({ merchantUuid, amount: "10.5", jurisdiction: "DE", pairs: [{ asset: "usdt", rail: "bep20" }] });
        const intent = await createIntent(merchantUuid);
        await Promise.all([
          new CheckoutRepository(db).link(session!.checkoutUuid, intent.intentUuid, new Date()),
          client.recordObservations({ observations: [transfer(intent, "a", FULL)] }),
        ]);
        return (await checkoutEvents(session!.checkoutUuid)).map((e) => [e.type, e.sequence]);
      }),
    );
    for (const events of rounds) expect(events).toEqual([["checkout.created", 1], ["checkout.started", 2], ["checkout.paid", 3]]);
  });

  it("a start waits for a payment being recorded for its intent, and then tells it paid", async () => {
    const merchantUuid = uuidv7();
    const { session } = await client.createCheckoutSession({ merchantUuid, amount: "10.5", jurisdiction: "DE", pairs: [{ asset: "usdt", rail: "bep20" }] });
    const intent = await createIntent(merchantUuid);
    let linking: Promise<boolean> | undefined;
    let linkedEarly = false;
    // A recording of a payment, caught in the middle: the intent's row locked as recording locks it, its status paid, not yet committed.
    await db.transaction(async (tx) => {
      await tx.query(sql(`select 1 from pay_in_intents where intent_uuid = $1 for no key update`), [intent.intentUuid]);
      await tx.query(sql(`update pay_in_intents set status = 'paid' where intent_uuid = $1`), [intent.intentUuid]);
      linking = new CheckoutRepository(db).link(session!.checkoutUuid, intent.intentUuid, new Date());
      void linking.then(() => (linkedEarly = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
    });
    expect(linkedEarly, "the start linked while the payment was being recorded").toBe(false);
    expect(await linking).toBe(true);
    const events = await checkoutEvents(session!.checkoutUuid);
    expect(events.map((e) => [e.type, e.sequence])).toEqual([["checkout.created", 1], ["checkout.started", 2], ["checkout.paid", 3]]);
  });
});

describe("the relay", () => {
  const OUTBOX_COUNT = sql<{ n: string }>(`select count(*) as n from event_outbox`);
  const outboxSize = async () => Number((await db.query(OUTBOX_COUNT))[0]!.n);

  it("hands every event over oldest first, once each with two relays at once, deletes what was taken, and keeps what was not", async () => {
    const intent = await createIntent();
    await client.recordObservations({ observations: [armed(intent.intentUuid)] });
    const waiting = await outboxSize();
    expect(waiting).toBeGreaterThan(0);

    // Notifications down: nothing is lost.
    await expect(relayOnce(db, async () => Promise.reject(new Error("unavailable")), 50)).rejects.toThrow(/unavailable/);
    expect(await outboxSize()).toBe(waiting);

    // Two relays (two replicas) at once, small batches: each event is handed over once, by one of them.
    const sent: notificationsV1.Event[][] = [];
    const slowRecord = async (events: notificationsV1.Event[]) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      sent.push(events);
    };
    const drain = async () => {
      while ((await relayOnce(db, slowRecord, 7)) > 0);
    };
    await Promise.all([drain(), drain()]);
    expect(await outboxSize()).toBe(0);
    const uuids = sent.flat().map((e) => e.eventUuid);
    expect(uuids).toHaveLength(waiting);
    expect(new Set(uuids).size).toBe(waiting);
    // Each batch oldest first.
    for (const batch of sent) expect(batch.map((e) => e.eventUuid)).toEqual(batch.map((e) => e.eventUuid).sort());
    const mine = sent.flat().filter((e) => e.intentUuid === intent.intentUuid);
    expect(mine.map((e) => [e.type, Number(e.sequence)])).toEqual([["pay_in_intent.created", 1], ["pay_in_intent.awaiting_payment", 2]]);
    expect(JSON.parse(mine[1]!.dataJson)).toMatchObject({ type: "pay_in_intent.awaiting_payment", sequence: 2 });
  });

  it("hands over, after a restart, what was committed but not handed over when the process died", async () => {
    const intent = await createIntent();
    // The relay dies while RecordEvents is under way (its transaction never commits).
    await expect(relayOnce(db, async () => Promise.reject(new Error("process killed")))).rejects.toThrow();
    const sent: notificationsV1.Event[] = [];
    await relayOnce(db, async (events) => void sent.push(...events));
    expect(sent.filter((e) => e.intentUuid === intent.intentUuid).map((e) => e.type)).toEqual(["pay_in_intent.created"]);
    expect(await outboxSize()).toBe(0);
  });
});

describe("the relay, when notifications refuses an event", () => {
  const OUTBOX = sql<{ event_uuid: string }>(`select event_uuid from event_outbox order by event_uuid`);
  const REFUSED = sql<OutboxRow & { refused_at: string; refusal_message: string }>(`select * from event_outbox_refused where event_uuid = $1`);
  const outbox = async () => (await db.query(OUTBOX)).map((r) => r.event_uuid);
  const refusedRow = async (eventUuid: string) => (await db.query(REFUSED, [eventUuid]))[0];

  /** Notifications as RecordEvents behaves: a batch holding an event of a type it does not know is refused whole, INVALID_ARGUMENT. */
  function notifications() {
    const calls: string[][] = [];
    const recorded: notificationsV1.Event[] = [];
    const record = async (events: notificationsV1.Event[]) => {
      calls.push(events.map((e) => e.eventUuid));
      const bad = events.findIndex((e) => !isEventType(e.type));
      if (bad >= 0) throw new ConnectError(`events[${bad}]: type "${events[bad]!.type}" is not an event type this service records`, Code.InvalidArgument);
      recorded.push(...events);
    };
    return { record, calls, recorded };
  }

  /** An event of a type this notifications does not know yet (as when payins is deployed first with a new type), written now. */
  async function writeUnknownEvent(): Promise<OutboxEvent> {
    const event: OutboxEvent = {
      eventUuid: uuidv7(), merchantUuid: uuidv7(), type: "checkout.expired" as EventType, sequence: 2, intentUuid: null, checkoutUuid: uuidv7(),
      createdAt: new Date(Math.floor(Date.now() / 1000) * 1000), data: JSON.stringify({ secret: "never logged" }),
    };
    await writeEvents(db, [event]);
    return event;
  }

  async function createCheckout(merchantUuid: string): Promise<string> {
    const { session } = await client.createCheckoutSession({ merchantUuid, amount: "10.5", jurisdiction: "DE", pairs: [{ asset: "usdt", rail: "bep20" }] });
    return session!.checkoutUuid;
  }

  /** Empties the outbox (what earlier tests left). */
  async function drain() {
    while ((await relayOnce(db, async () => {})) > 0);
    expect(await outbox()).toEqual([]);
  }

  it("hands over the events around it in order, sets it aside in event_outbox_refused, and goes on with later events", async () => {
    await drain();
    const merchantUuid = uuidv7();
    const first = await createCheckout(merchantUuid);
    const bad = await writeUnknownEvent();
    const second = await createCheckout(merchantUuid);
    const waiting = await outbox();
    expect(waiting).toHaveLength(3);
    expect(waiting[1]).toBe(bad.eventUuid);

    const { record, calls, recorded } = notifications();
    const refused: RefusedEvent[] = [];
    expect(await relayOnce(db, record, 1000, (e) => refused.push(e))).toBe(3);
    // The batch, refused whole; then each of its events alone, oldest first.
    expect(calls).toEqual([waiting, [waiting[0]], [waiting[1]], [waiting[2]]]);
    expect(recorded.map((e) => e.checkoutUuid)).toEqual([first, second]);
    expect(await outbox()).toEqual([]);
    const row = await refusedRow(bad.eventUuid);
    expect(row).toMatchObject({
      merchant_uuid: bad.merchantUuid, type: "checkout.expired", sequence: "2", intent_uuid: null, checkout_uuid: bad.checkoutUuid, data: bad.data,
      refusal_message: 'events[0]: type "checkout.expired" is not an event type this service records',
    });
    expect(new Date(row!.created_at)).toEqual(bad.createdAt);
    expect(Math.abs(Date.now() - new Date(row!.refused_at).getTime())).toBeLessThan(60_000);
    expect(refused).toEqual([{ eventUuid: bad.eventUuid, type: "checkout.expired", message: row!.refusal_message }]);

    // Later events go as usual, in one batch.
    const third = await createCheckout(merchantUuid);
    calls.length = 0;
    expect(await relayOnce(db, record, 1000, (e) => refused.push(e))).toBe(1);
    expect(calls).toHaveLength(1);
    expect(recorded.map((e) => e.checkoutUuid)).toEqual([first, second, third]);
    expect(refused).toHaveLength(1);
  });

  it("keeps every event in the outbox when notifications is unavailable, even while it sends them one at a time", async () => {
    await drain();
    const good = await createCheckout(uuidv7());
    const bad = await writeUnknownEvent();
    const waiting = await outbox();
    const refused: RefusedEvent[] = [];
    const unavailable = async () => Promise.reject(new ConnectError("connect ECONNREFUSED", Code.Unavailable));
    await expect(relayOnce(db, unavailable, 1000, (e) => refused.push(e))).rejects.toThrow(/ECONNREFUSED/);
    await expect(relayOnce(db, async () => Promise.reject(new ConnectError("slow", Code.DeadlineExceeded)))).rejects.toThrow(/slow/);
    // Refused whole, then down while the events go one at a time: the pass is undone, nothing is set aside.
    const { record } = notifications();
    let call = 0;
    const failsSecond = async (events: notificationsV1.Event[]) => {
      if (++call === 3) throw new ConnectError("connect ECONNREFUSED", Code.Unavailable);
      await record(events);
    };
    await expect(relayOnce(db, failsSecond, 1000, (e) => refused.push(e))).rejects.toThrow(/ECONNREFUSED/);
    expect(await outbox()).toEqual(waiting);
    expect(await refusedRow(bad.eventUuid)).toBeUndefined();
    expect(refused).toEqual([]);

    // Back: the good event is handed over, the bad one set aside.
    const back = notifications();
    expect(await relayOnce(db, back.record, 1000, (e) => refused.push(e))).toBe(2);
    expect(back.recorded.map((e) => e.checkoutUuid)).toEqual([good]);
    expect(refused.map((e) => e.eventUuid)).toEqual([bad.eventUuid]);
  });

  it("takes an event put back into the outbox once notifications knows it, and sets it aside again (one row) while it does not", async () => {
    await drain();
    const bad = await writeUnknownEvent();
    const { record } = notifications();
    await relayOnce(db, record);
    const PUT_BACK = sql(
      `insert into event_outbox (event_uuid, merchant_uuid, type, sequence, intent_uuid, checkout_uuid, created_at, data)
         select event_uuid, merchant_uuid, type, sequence, intent_uuid, checkout_uuid, created_at, data from event_outbox_refused where event_uuid = $1`,
    );
    await db.query(PUT_BACK, [bad.eventUuid]);
    expect(await outbox()).toEqual([bad.eventUuid]);
    await relayOnce(db, record);
    expect(await outbox()).toEqual([]);
    expect(await db.query(REFUSED, [bad.eventUuid])).toHaveLength(1);

    // Notifications upgraded: the event put back is handed over.
    await db.query(PUT_BACK, [bad.eventUuid]);
    const sent: notificationsV1.Event[] = [];
    await relayOnce(db, async (events) => void sent.push(...events));
    expect(sent.map((e) => [e.eventUuid, e.type, e.dataJson])).toEqual([[bad.eventUuid, "checkout.expired", bad.data]]);
    expect(await outbox()).toEqual([]);
  });

  it("logs each refused event once, at error level, with its uuid and type and never its data", async () => {
    await drain();
    const bad = await writeUnknownEvent();
    const good = await createCheckout(uuidv7());
    const { record, recorded } = notifications();
    const logger = { warn: vi.fn(), info: vi.fn(), error: vi.fn() };
    const relay = startEventRelay({ db, record, logger, idleMs: 10 });
    try {
      await vi.waitFor(async () => expect(await outbox()).toEqual([]), { timeout: 5_000, interval: 20 });
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await relay.stop();
    }
    expect(recorded.map((e) => e.checkoutUuid)).toEqual([good]);
    expect(logger.error).toHaveBeenCalledTimes(1);
    const [fields, message] = logger.error.mock.calls[0]!;
    expect(fields).toEqual({ eventUuid: bad.eventUuid, type: "checkout.expired", reason: expect.stringContaining("not an event type"), alert: true });
    expect(message).toMatch(/event_outbox_refused/);
    expect(JSON.stringify(logger.error.mock.calls)).not.toContain("never logged");
    expect(logger.warn).not.toHaveBeenCalled();
  });
});
