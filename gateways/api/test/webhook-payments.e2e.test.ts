/**
 * Signed webhooks of real payments, end to end: two anvil chains, the whole
 * platform (payins writing events into its outbox and relaying them to the
 * notifications service, the notifier delivering them), real ERC-20 transfers,
 * and a merchant's receiver on 127.0.0.1 that verifies every request with the
 * `standardwebhooks` package and the secret its endpoint was created with.
 * What it gets for a full payment, a partial one, a late one and one after
 * paid is each event at least once, validly signed, in per-intent sequence
 * 1..n once sorted, with the intent as a read showed it then — and the same
 * events, in the same order, as the events API lists them. Then the crashes:
 * payins killed (SIGKILL) with events not yet handed over, and the notifier
 * killed with deliveries in flight; nothing is lost, and duplicates are
 * counted in the test output. (That a hanging endpoint does not delay a
 * healthy one of the same merchant is proven on a real notifier process in
 * services/notifications/test/notifier-delivery.test.ts.)
 */
import { randomBytes } from "node:crypto";
import { appendFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { awaitFreshTotpStep, startTestPlatform, totpCodeAt, type TestPlatform } from "@payin/testing";
import { mineBlocks, startLocalChains, type LocalChains, type LocalRail } from "@payin/local-chains";
import pg from "pg";
import { Webhook } from "standardwebhooks";
import type { Address, Hex } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { ChainMerchant, eventually } from "./chain-support.js";
import { Api, bootstrapAdmin, expectAnswersDocumented, inFuture, Operator, type TestMerchant } from "./support.js";

/** The longest any one wait may take (CI: two cores, two platforms at once). */
const WAIT_MS = 90_000;
const LONG = 180_000;

let chains: LocalChains;
let platform: TestPlatform;
let api: Api;
let operator: Operator;
let db: pg.Pool;
let merchant: TestMerchant;
let shop: ChainMerchant;
/** A bearer session of a merchant_admin member of the merchant (webhook.manage). */
let manager = "";

interface Intent {
  intent_uuid: string;
  address: Address;
  status: string;
  expires_at: string;
}

/** One request the receiver got. */
interface Request {
  id: string;
  at: number;
  body: string;
  /** What `standardwebhooks` verified (null when verification failed). */
  payload: { type: string; timestamp: string; data: any } | null;
  error: string | null;
  /** Whether the receiver answered it 2xx (a held request cut off by a crash was not). */
  answered: boolean;
}

/**
 * The merchant's receiver: verifies every request with `standardwebhooks` and
 * answers 204, or, while `holding`, holds requests open without answering.
 */
class Receiver {
  readonly requests: Request[] = [];
  secret = "";
  holding = false;
  private readonly held = new Set<http.ServerResponse>();
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const request: Request = { id: String(req.headers["webhook-id"]), at: Date.now(), body, payload: null, error: null, answered: false };
      try {
        request.payload = new Webhook(this.secret).verify(body, req.headers as Record<string, string>) as Request["payload"];
      } catch (error) {
        request.error = String(error);
      }
      this.requests.push(request);
      if (this.holding) {
        this.held.add(res);
        res.on("close", () => this.held.delete(res));
        return;
      }
      request.answered = true;
      res.writeHead(204).end();
    });
  });
  url = "";

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }

  /** Requests held open now. */
  get heldCount(): number {
    return this.held.size;
  }

  /** Each event (by webhook-id) answered 2xx at least once, with the payload of its first request. */
  delivered(): Map<string, NonNullable<Request["payload"]>> {
    const out = new Map<string, NonNullable<Request["payload"]>>();
    for (const r of this.requests) if (r.answered && r.payload && !out.has(r.id)) out.set(r.id, r.payload);
    return out;
  }

  /** The events of one intent delivered so far, sorted by their sequence. */
  ofIntent(intentUuid: string): NonNullable<Request["payload"]>[] {
    return [...this.delivered().values()].filter((p) => p.data.pay_in_intent?.intent_uuid === intentUuid).sort((x, y) => x.data.sequence - y.data.sequence);
  }

  /** How many requests each of `ids` came in. */
  requestsPer(ids: Iterable<string>): Map<string, number> {
    const counts = new Map<string, number>([...ids].map((id) => [id, 0]));
    for (const r of this.requests) if (counts.has(r.id)) counts.set(r.id, counts.get(r.id)! + 1);
    return counts;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const receiver = new Receiver();

/** One line of what a test saw (duplicates): on the test output and in webhook-payments.log beside the platform's logs. */
async function report(line: string): Promise<void> {
  process.stdout.write(`webhook payments: ${line}\n`);
  await appendFile(path.join(inject("testLogDir"), "webhook-payments.log"), `${line}\n`);
}

expectAnswersDocumented();

beforeAll(async () => {
  await receiver.listen();
  chains = await startLocalChains();
  platform = await startTestPlatform({
    env: {
      ...chains.env,
      BEP20_POLL_INTERVAL_MS: "100",
      ERC20_POLL_INTERVAL_MS: "100",
      // A killed notifier's jobs are handed back once it has been silent 6 s (defaults: beats every 3 s, dead after 15 s).
      NOTIFIER_HEARTBEAT_MS: "1000",
      NOTIFIER_STALE_AFTER_MS: "6000",
    },
  });
  api = new Api(platform.apiUrl);
  operator = new Operator(platform);
  merchant = await operator.merchant({ name: "Webhook payments shop" });
  shop = new ChainMerchant(api, merchant, chains);
  db = new pg.Pool({ connectionString: platform.databaseUrl, max: 2 });

  // A platform admin adds a merchant_admin member (webhook.manage), who signs in and creates the endpoint.
  const admin = await bootstrapAdmin(operator);
  await awaitFreshTotpStep();
  const login = await operator.identity.login({ email: admin.email, password: admin.password, transport: "bearer", clientIp: "10.9.0.1" });
  expect(login.result.case).toBe("mfaChallengeToken");
  const adminSession = (await operator.identity.completeMfa({ mfaChallengeToken: login.result.value as string, code: totpCodeAt(admin.totpSecret), clientIp: "10.9.0.1" }))
    .authenticated!.sessionToken;
  const email = `wp-${randomBytes(5).toString("hex")}@example.com`;
  const password = `pw-${randomBytes(12).toString("base64url")}`;
  const person = await operator.identity.createIdentity({ caller: { sessionToken: adminSession }, email, password, roles: ["merchant_admin"] });
  await operator.merchants.ensureMember({ merchantUuid: merchant.uuid, identityUuid: person.identity!.uuid });
  const signedIn = await operator.identity.login({ email, password, transport: "bearer", clientIp: "10.9.0.2" });
  expect(signedIn.result.case).toBe("authenticated");
  manager = (signedIn.result.value as { sessionToken: string }).sessionToken;

  // Every event type, to the receiver; the secret is answered once and kept by the merchant (here, the receiver).
  const created = await api.request("POST", `/api/v1/merchants/${merchant.uuid}/webhook-endpoints`, { token: manager, json: { url: receiver.url, description: "e2e receiver" } });
  expect(created.status, created.text).toBe(201);
  expect(created.body.event_types).toBeNull();
  receiver.secret = created.body.secret;
}, 240_000);

afterAll(async () => {
  await platform?.stopAll();
  await db?.end();
  await chains?.stop();
  await receiver.close();
}, 60_000);

afterEach(() => {
  // Every request the receiver got, whatever the test, verified with the endpoint's secret.
  expect(receiver.requests.filter((r) => r.payload === null).map((r) => `${r.id}: ${r.error}`)).toEqual([]);
});

const createIntent = (overrides: Record<string, unknown> = {}) => shop.createIntent<Intent>(overrides);
const pay = (local: LocalRail, asset: "usdt" | "usdc", to: Address, amount: string): Promise<Hex> => shop.pay(local, asset, to, amount);

async function read(intent: Intent): Promise<any> {
  const res = await api.read(merchant.uuid, merchant.token, intent.intent_uuid);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function transfersOf(intent: Intent): Promise<{ received_amount: string; data: { tx_hash: string; state: string }[] }> {
  const res = await api.request("GET", `/api/v1/merchants/${merchant.uuid}/pay-in-intents/${intent.intent_uuid}/transfers`, { token: merchant.token });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Every event of an intent as the events API lists it (all pages, oldest first). */
async function listed(intentUuid: string): Promise<any[]> {
  const out: any[] = [];
  let after = "";
  for (;;) {
    const res = await api.request("GET", `/api/v1/merchants/${merchant.uuid}/events?intent_uuid=${intentUuid}&limit=100${after ? `&after=${after}` : ""}`, { token: merchant.token });
    expect(res.status, res.text).toBe(200);
    out.push(...res.body.data);
    if (!res.body.has_more) return out;
    after = res.body.next_after;
  }
}

/** Waits until the receiver has `count` events of the intent; answers them sorted by sequence. */
function receivedOf(intent: Intent, count: number, what: string): Promise<NonNullable<Request["payload"]>[]> {
  return eventually(async () => receiver.ofIntent(intent.intent_uuid), (list) => list.length >= count, what, WAIT_MS);
}

/** Sends a transfer and waits until the platform has seen it pending (so its detection is told before it settles). */
async function paySeen(intent: Intent, local: LocalRail, asset: "usdt" | "usdc", amount: string): Promise<Hex> {
  const tx = await pay(local, asset, intent.address, amount);
  await eventually(() => transfersOf(intent), (t) => t.data.some((d) => d.tx_hash === tx), "the transfer to be seen", WAIT_MS);
  return tx;
}

/**
 * What every intent's deliveries must be: each event a valid Standard Webhooks
 * body (`{type, timestamp, data}`, timestamp the event's time, data.id the
 * webhook-id), sequences 1..n without a gap, exactly the events the events API
 * lists for the intent in the same order. With a label, reports the duplicates.
 */
async function expectDeliveredAsListed(intent: Intent, events: NonNullable<Request["payload"]>[], label?: string): Promise<void> {
  expect(events.map((e) => e.data.sequence)).toEqual(events.map((_e, i) => i + 1));
  for (const e of events) {
    expect(e.type).toBe(e.data.type);
    expect(e.timestamp).toBe(e.data.created_at);
    expect(e.data).toMatchObject({ merchant_uuid: merchant.uuid, version: 1 });
    expect(e.data.pay_in_intent.intent_uuid).toBe(intent.intent_uuid);
  }
  const apiEvents = await listed(intent.intent_uuid);
  expect(apiEvents.map((e) => e.id)).toEqual(events.map((e) => e.data.id));
  expect(apiEvents).toEqual(events.map((e) => e.data));
  if (label === undefined) return;
  const ids = events.map((e) => e.data.id as string);
  const requests = receiver.requestsPer(ids);
  const duplicates = [...requests.values()].filter((n) => n > 1).length;
  await report(`${label}: ${ids.length} events, ${[...requests.values()].reduce((a, b) => a + b, 0)} requests, ${duplicates} delivered more than once`);
}

describe("a payment's webhooks", () => {
  it("full payment, then a transfer after paid: created → awaiting_payment → transfer_detected → transfer_settled → paid → transfer_flagged (after_paid) → transfer_settled", async () => {
    const local = chains.rails.bep20;
    const intent = await createIntent({ asset: "usdt", amount: "12.5" });
    const readCreated = await read(intent);
    await shop.armed(intent, local, WAIT_MS);
    const readAwaiting = await read(intent);
    const tx = await paySeen(intent, local, "usdt", "12.5");
    const readDetected = await read(intent);
    await mineBlocks(local, 2);
    await eventually(() => shop.statusOf(intent), (s) => s === "paid", "the intent to be paid", WAIT_MS);
    const readPaid = await read(intent);

    const events = await receivedOf(intent, 5, "the full payment's five events");
    expect(events.map((e) => e.type)).toEqual([
      "pay_in_intent.created",
      "pay_in_intent.awaiting_payment",
      "pay_in_intent.transfer_detected",
      "pay_in_intent.transfer_settled",
      "pay_in_intent.paid",
    ]);
    // The intent as a read showed it after each change (the settling change paid it: both its events show it paid).
    expect(events.map((e) => e.data.pay_in_intent.status)).toEqual(["created", "awaiting_payment", "awaiting_payment", "paid", "paid"]);
    if (readCreated.status === "created") expect(events[0]!.data.pay_in_intent).toEqual(readCreated);
    expect(events[1]!.data.pay_in_intent).toEqual(readAwaiting);
    expect(events[2]!.data.pay_in_intent).toEqual(readDetected);
    expect(events[3]!.data.pay_in_intent).toEqual(readPaid);
    expect(events[4]!.data.pay_in_intent).toEqual(readPaid);
    expect(events.map((e) => e.data.transfer?.tx_hash)).toEqual([undefined, undefined, tx, tx, tx]);
    expect(events.map((e) => e.data.transfer?.state)).toEqual([undefined, undefined, "pending", "settled", "settled"]);
    expect(events[4]!.data.transfer).toMatchObject({ rail: "bep20", asset: "usdt", amount: "12.5", flags: { after_paid: false, late: false } });

    // Paid again: money the merchant is to give back, told as after_paid, then settled; the intent stays paid.
    const again = await paySeen(intent, local, "usdt", "1");
    await mineBlocks(local, 2);
    const all = await receivedOf(intent, 7, "the after-paid transfer's two events");
    expect(all.slice(5).map((e) => [e.type, e.data.flag, e.data.transfer.tx_hash, e.data.transfer.state, e.data.transfer.flags.after_paid, e.data.pay_in_intent.status])).toEqual([
      ["pay_in_intent.transfer_flagged", "after_paid", again, "pending", true, "paid"],
      ["pay_in_intent.transfer_settled", undefined, again, "settled", true, "paid"],
    ]);
    await expectDeliveredAsListed(intent, all, "full payment + after paid");
  }, LONG);

  it("partial payment: each transfer detected and settled, paid after the second", async () => {
    const local = chains.rails.erc20;
    const intent = await createIntent({ asset: "usdc", amount: "10" });
    await shop.armed(intent, local, WAIT_MS);
    const first = await paySeen(intent, local, "usdc", "4");
    await mineBlocks(local, 2);
    await eventually(() => transfersOf(intent), (t) => t.received_amount === "4", "the first part to settle", WAIT_MS);
    const readPart = await read(intent);
    const second = await paySeen(intent, local, "usdc", "6");
    await mineBlocks(local, 2);
    await eventually(() => shop.statusOf(intent), (s) => s === "paid", "the second part to pay the intent", WAIT_MS);
    const readPaid = await read(intent);

    const events = await receivedOf(intent, 7, "the partial payment's seven events");
    expect(events.map((e) => [e.type, e.data.transfer?.tx_hash, e.data.pay_in_intent.status])).toEqual([
      ["pay_in_intent.created", undefined, "created"],
      ["pay_in_intent.awaiting_payment", undefined, "awaiting_payment"],
      ["pay_in_intent.transfer_detected", first, "awaiting_payment"],
      ["pay_in_intent.transfer_settled", first, "awaiting_payment"],
      ["pay_in_intent.transfer_detected", second, "awaiting_payment"],
      ["pay_in_intent.transfer_settled", second, "paid"],
      ["pay_in_intent.paid", second, "paid"],
    ]);
    expect(events[3]!.data.pay_in_intent).toEqual(readPart);
    expect(events[6]!.data.pay_in_intent).toEqual(readPaid);
    await expectDeliveredAsListed(intent, events, "partial payment");
  }, LONG);

  it("deadline passed unpaid then a late transfer (flagged late), and deadline passed underpaid", async () => {
    const local = chains.rails.bep20;
    // Both deadlines leave time to arm them and to settle the underpaid one's part first.
    const expiresAt = inFuture(25_000);
    const late = await createIntent({ asset: "usdt", amount: "3", expires_at: expiresAt });
    const under = await createIntent({ asset: "usdt", amount: "10", expires_at: expiresAt });
    await shop.armed(late, local, WAIT_MS);
    await eventually(() => shop.statusOf(under), (s) => s === "awaiting_payment", "the second intent to await payment", WAIT_MS);
    const part = await paySeen(under, local, "usdt", "4");
    await mineBlocks(local, 2);
    await eventually(() => transfersOf(under), (t) => t.received_amount === "4", "the part to settle", WAIT_MS);
    const settledAt = Date.now();
    expect(settledAt, "the part settled only after the deadline (the machine was too slow for this test's timing)").toBeLessThan(Date.parse(late.expires_at));

    // The deadline scanner tells both once their deadline has passed; the status does not change.
    const [lateTold] = (await receivedOf(late, 3, "the unpaid intent's deadline_passed")).slice(2);
    expect(lateTold).toMatchObject({ type: "pay_in_intent.deadline_passed", data: { outcome: "unpaid", received_amount: "0", pay_in_intent: { status: "awaiting_payment" } } });
    const underEvents = await receivedOf(under, 5, "the underpaid intent's deadline_passed");
    expect(underEvents.map((e) => [e.type, e.data.transfer?.tx_hash, e.data.pay_in_intent.status])).toEqual([
      ["pay_in_intent.created", undefined, "created"],
      ["pay_in_intent.awaiting_payment", undefined, "awaiting_payment"],
      ["pay_in_intent.transfer_detected", part, "awaiting_payment"],
      ["pay_in_intent.transfer_settled", part, "awaiting_payment"],
      ["pay_in_intent.deadline_passed", undefined, "awaiting_payment"],
    ]);
    expect(underEvents[4]!.data).toMatchObject({ outcome: "underpaid", received_amount: "4" });
    expect(Date.parse(underEvents[4]!.data.created_at)).toBeGreaterThanOrEqual(Date.parse(under.expires_at));

    // A payment in a block after the deadline: flagged late (it does not count), then settled.
    const latest = await local.publicClient.getBlock();
    const deadline = Math.floor(Date.parse(late.expires_at) / 1000);
    await local.publicClient.request({ method: "evm_setNextBlockTimestamp" as never, params: [`0x${Math.max(deadline + 2, Number(latest.timestamp) + 1).toString(16)}`] as never });
    const tx = await paySeen(late, local, "usdt", "3");
    await mineBlocks(local, 2);
    const events = await receivedOf(late, 5, "the late transfer's events");
    expect(events.map((e) => [e.type, e.data.flag, e.data.transfer?.tx_hash, e.data.transfer?.state, e.data.transfer?.flags.late, e.data.pay_in_intent.status])).toEqual([
      ["pay_in_intent.created", undefined, undefined, undefined, undefined, "created"],
      ["pay_in_intent.awaiting_payment", undefined, undefined, undefined, undefined, "awaiting_payment"],
      ["pay_in_intent.deadline_passed", undefined, undefined, undefined, undefined, "awaiting_payment"],
      ["pay_in_intent.transfer_flagged", "late", tx, "pending", true, "awaiting_payment"],
      ["pay_in_intent.transfer_settled", undefined, tx, "settled", true, "awaiting_payment"],
    ]);
    expect(await shop.statusOf(late)).toBe("awaiting_payment");
    await expectDeliveredAsListed(late, events, "deadline passed unpaid + late transfer");
    await expectDeliveredAsListed(under, underEvents, "deadline passed underpaid");
  }, LONG);
});

describe("crashes lose no webhook", () => {
  it("payins killed (SIGKILL) with events written but not handed over: each is delivered once both run again", async () => {
    const local = chains.rails.bep20;
    await platform.stop("notifications");
    const intents: Intent[] = [];
    let outboxIds: string[] = [];
    try {
      for (let i = 0; i < 4; i++) intents.push(await createIntent({ asset: "usdt", amount: "2" }));
      await shop.armed(intents[0]!, local, WAIT_MS);
      for (const intent of intents) await eventually(() => shop.statusOf(intent), (s) => s === "awaiting_payment", "every intent to await payment", WAIT_MS);
      // Their events wait in payins' outbox (the relay cannot hand them over); payins dies before it can.
      const waiting = await db.query<{ event_uuid: string }>(`select event_uuid from payins.event_outbox where intent_uuid = any($1::uuid[])`, [intents.map((i) => i.intent_uuid)]);
      outboxIds = waiting.rows.map((r) => r.event_uuid);
    } finally {
      await platform.kill("payins");
      await platform.start("notifications");
      await platform.start("payins");
    }
    expect(outboxIds).toHaveLength(intents.length * 2);
    await eventually(async () => receiver.delivered(), (d) => outboxIds.every((id) => d.has(id)), "every event left in the outbox to be delivered", WAIT_MS);
    for (const intent of intents) {
      const events = receiver.ofIntent(intent.intent_uuid);
      expect(events.map((e) => e.type)).toEqual(["pay_in_intent.created", "pay_in_intent.awaiting_payment"]);
      await expectDeliveredAsListed(intent, events);
    }
    const counts = receiver.requestsPer(outboxIds);
    await report(`payins SIGKILLed with ${outboxIds.length} events in its outbox: all delivered, ${[...counts.values()].filter((n) => n > 1).length} more than once`);
  }, LONG);

  it("the notifier killed (SIGKILL) with deliveries in flight: every event delivered at least once after it starts again", async () => {
    const local = chains.rails.bep20;
    receiver.holding = true;
    const intents: Intent[] = [];
    for (let i = 0; i < 8; i++) intents.push(await createIntent({ asset: "usdt", amount: "1" }));
    await shop.armed(intents[0]!, local, WAIT_MS);
    // The receiver holds the requests: the notifier has as many in flight as one endpoint may have (4 by default).
    await eventually(async () => receiver.heldCount, (n) => n >= 4, "deliveries to be in flight", WAIT_MS);
    const inFlight = receiver.heldCount;
    await platform.kill("notifier");
    receiver.holding = false;
    await platform.start("notifier");
    for (const intent of intents) await eventually(() => shop.statusOf(intent), (s) => s === "awaiting_payment", "every intent to await payment", WAIT_MS);
    const ids: string[] = [];
    for (const intent of intents) {
      const events = await eventually(() => listed(intent.intent_uuid), (list) => list.length === 2, "each intent's two events to be listed", WAIT_MS);
      ids.push(...events.map((e) => e.id as string));
    }
    await eventually(async () => receiver.delivered(), (d) => ids.every((id) => d.has(id)), "every event to be delivered after the notifier's restart", WAIT_MS);
    for (const intent of intents) await expectDeliveredAsListed(intent, receiver.ofIntent(intent.intent_uuid));
    const counts = receiver.requestsPer(ids);
    const twice = [...counts.values()].filter((n) => n > 1).length;
    await report(`notifier SIGKILLed with ${inFlight} requests in flight: ${ids.length} events all delivered, ${[...counts.values()].reduce((a, b) => a + b, 0)} requests, ${twice} events came more than once`);
  }, LONG);
});
