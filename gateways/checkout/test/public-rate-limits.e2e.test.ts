/**
 * The payer routes' rate limits at their defaults (60 requests per 60 s per
 * action, per client address and per token, counted in memory) and the
 * payment deadline with a one-minute payment window. The gateway believes
 * X-Forwarded-For from the loopback proxy, so each test speaks from its own
 * client addresses and never shares a counter with another.
 */
import { randomBytes } from "node:crypto";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { mineBlocks, transferToken } from "@payin/local-chains";
import { payinsV1 } from "@payin/proto";
import type { Address } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import {
  awaitReadiness,
  elementById,
  eventually,
  expectNoInlineScriptOrStyle,
  expectSecurityHeaders,
  PageClient,
  readPlatformLog,
  readyMerchant,
  textOfHtml,
  useCheckoutPlatform,
  type PageResponse,
} from "./support.js";

const LIMIT = 60;
const e2e = useCheckoutPlatform({ chains: true, env: { TRUSTED_PROXIES: "127.0.0.1", CHECKOUT_PAYMENT_WINDOW_S: "60" } });

let merchantUuid: string;
/** Every checkout token handed out in this file, for the log check at its end. */
const tokensUsed: string[] = [];

beforeAll(async () => {
  const merchant = await readyMerchant(e2e, "Rate Limited Shop");
  merchantUuid = merchant.uuid;
  await awaitReadiness(e2e, merchantUuid);
}, 120_000);

let addressCounter = 0;
/** A client address no other request of this file uses. */
const freshAddress = () => {
  addressCounter++;
  return `10.${(addressCounter >> 16) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;
};
/** A payer at its own client address. */
const payerAt = (address = freshAddress()) => new PageClient(e2e.checkoutUrl, { "x-forwarded-for": address });

async function newCheckout(amount = "9.99"): Promise<{ token: string; checkoutUuid: string }> {
  const { session, token } = await e2e.payins.createCheckoutSession({
    merchantUuid,
    amount,
    pairs: [{ asset: "usdt", rail: "bep20" }],
    jurisdiction: "DE",
    description: "Rate limit test order",
    reference: `rl-${randomBytes(4).toString("hex")}`,
  });
  tokensUsed.push(token);
  return { token, checkoutUuid: session!.checkoutUuid };
}

function expectRetryAfter(res: PageResponse): void {
  const retryAfter = res.headers.get("retry-after") ?? "";
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(60);
}

function expectStatusRateLimited(res: PageResponse): void {
  expect(res.status, res.text).toBe(429);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  expect(Object.keys(res.json)).toEqual(["error"]);
  expect(Object.keys(res.json.error).sort()).toEqual(["code", "message", "request_id"]);
  expect(res.json.error.code).toBe("RATE_LIMITED");
  expectRetryAfter(res);
  expectSecurityHeaders(res);
  expect(res.headers.get("cache-control")).toBe("no-store");
}

function expectPageRateLimited(res: PageResponse): void {
  expect(res.status, res.text.slice(0, 300)).toBe(429);
  expect(res.headers.get("content-type")).toMatch(/^text\/html;\s*charset=utf-8$/i);
  expect(res.text).toMatch(/<html lang="en"/);
  expect(textOfHtml(res.text)).toMatch(/too many requests/i);
  expectRetryAfter(res);
  expectSecurityHeaders(res);
  expectNoInlineScriptOrStyle(res.text);
  expect(res.headers.get("cache-control")).toBe("no-store");
}

/** Sends `count` requests one after the other and answers their statuses. */
async function statuses(count: number, send: (i: number) => Promise<PageResponse>): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push((await send(i)).status);
  return seen;
}

describe("public rate limits", () => {
  it("answers 60 status polls of one token, then 429 RATE_LIMITED with Retry-After; the page is counted apart", async () => {
    const { token } = await newCheckout();
    const payer = payerAt();
    expect(await statuses(LIMIT, () => payer.get(`/c/${token}/status`))).toEqual(Array(LIMIT).fill(200));
    expectStatusRateLimited(await payer.get(`/c/${token}/status`));
    expectStatusRateLimited(await payer.get(`/c/${token}/status`));
    const page = await payer.get(`/c/${token}`);
    expect(page.status).toBe(200);
    expect(elementById(page.text, "start-form")).not.toBeNull();
  });

  it("answers 60 page views of one token, then a readable 429 page with Retry-After; the status is counted apart", async () => {
    const { token } = await newCheckout();
    const payer = payerAt();
    expect(await statuses(LIMIT, () => payer.get(`/c/${token}`))).toEqual(Array(LIMIT).fill(200));
    expectPageRateLimited(await payer.get(`/c/${token}`));
    const res = await payer.get(`/c/${token}/status`);
    expect(res.status).toBe(200);
    expect(res.json.presentation_state).toBe("ready_to_start");
  });

  it("answers 60 starts of one token, then a 429 page; still one intent", async () => {
    const { token } = await newCheckout();
    const payer = payerAt();
    expect(await statuses(LIMIT, () => payer.post(`/c/${token}/start`, { pair: "usdt/bep20" }))).toEqual(Array(LIMIT).fill(303));
    expectPageRateLimited(await payer.post(`/c/${token}/start`, { pair: "usdt/bep20" }));
    const read = await e2e.payins.getCheckoutByToken({ token });
    expect(read.intent).toBeDefined();
    expect(read.session!.state).not.toBe(payinsV1.CheckoutState.OPEN);
  });

  it("stops one token at 60 even when every request comes from another address", async () => {
    const { token } = await newCheckout();
    expect(await statuses(LIMIT, () => payerAt().get(`/c/${token}/status`))).toEqual(Array(LIMIT).fill(200));
    expectStatusRateLimited(await payerAt().get(`/c/${token}/status`));
    // Another token, from a fresh address, is not held back.
    const other = await newCheckout();
    expect((await payerAt().get(`/c/${other.token}/status`)).status).toBe(200);
  });

  it("stops one address at 60 across many tokens", async () => {
    const checkouts: { token: string }[] = [];
    while (checkouts.length < LIMIT + 1) checkouts.push(...(await Promise.all(Array.from({ length: 10 }, () => newCheckout()))));
    const address = freshAddress();
    expect(await statuses(LIMIT, (i) => payerAt(address).get(`/c/${checkouts[i]!.token}/status`))).toEqual(Array(LIMIT).fill(200));
    expectStatusRateLimited(await payerAt(address).get(`/c/${checkouts[LIMIT]!.token}/status`));
    // The same token from another address is answered.
    expect((await payerAt().get(`/c/${checkouts[LIMIT]!.token}/status`)).status).toBe(200);
  });

  it("stops one address guessing tokens at 60, counted before any lookup", async () => {
    const address = freshAddress();
    const guess = () => randomBytes(32).toString("base64url");
    expect(await statuses(LIMIT, () => payerAt(address).get(`/c/${guess()}/status`))).toEqual(Array(LIMIT).fill(404));
    expectStatusRateLimited(await payerAt(address).get(`/c/${guess()}/status`));
    expect(await statuses(LIMIT, () => payerAt(address).get(`/c/${guess()}`))).toEqual(Array(LIMIT).fill(404));
    expectPageRateLimited(await payerAt(address).get(`/c/${guess()}`));
  });
});

describe("how client addresses are counted", () => {
  it("counts one IPv4 client as one address however it is written (plain, ::ffff:-mapped, expanded)", async () => {
    const { token } = await newCheckout();
    const other = await newCheckout();
    const [, , c, d] = freshAddress().split(".").map(Number) as [number, number, number, number];
    const hex = (n: number) => n.toString(16).padStart(2, "0");
    const spellings = [`10.200.${c}.${d}`, `::ffff:10.200.${c}.${d}`, `0:0:0:0:0:ffff:0ac8:${hex(c)}${hex(d)}`];
    // 20 polls in each spelling: the address's whole limit.
    expect(await statuses(LIMIT, (i) => payerAt(spellings[i % 3]).get(`/c/${token}/status`))).toEqual(Array(LIMIT).fill(200));
    for (const spelling of spellings) expectStatusRateLimited(await payerAt(spelling).get(`/c/${other.token}/status`));
  });

  it("counts IPv6 clients by their /64: sixty addresses of one /64 share one budget", async () => {
    const { token } = await newCheckout();
    const other = await newCheckout();
    const network = `2001:db8:${randomBytes(2).toString("hex")}:${randomBytes(2).toString("hex")}`;
    expect(await statuses(LIMIT, (i) => payerAt(`${network}::${(i + 1).toString(16)}`).get(`/c/${token}/status`))).toEqual(Array(LIMIT).fill(200));
    expectStatusRateLimited(await payerAt(`${network}:ffff:ffff:ffff:ffff`).get(`/c/${other.token}/status`));
    // Another /64 is another client.
    expect((await payerAt(`2001:db8:ffff:ffff::1`).get(`/c/${other.token}/status`)).status).toBe(200);
  });
});

describe("a link cannot be locked by someone else", () => {
  it("an address blocked by its own limit spends nothing of the link's: the payer still polls, views and starts", async () => {
    const { token } = await newCheckout();
    const blocked = freshAddress();
    const guess = () => randomBytes(32).toString("base64url");
    const requests = {
      status: (t: string, address: string) => payerAt(address).get(`/c/${t}/status`),
      page: (t: string, address: string) => payerAt(address).get(`/c/${t}`),
      start: (t: string, address: string) => payerAt(address).post(`/c/${t}/start`, { pair: "usdt/bep20" }),
    };
    for (const send of Object.values(requests)) {
      // The address spends its limit elsewhere, then keeps asking for the link: every ask refused.
      expect(await statuses(LIMIT, () => send(guess(), blocked))).toEqual(Array(LIMIT).fill(404));
      expect(await statuses(LIMIT + 10, () => send(token, blocked))).toEqual(Array(LIMIT + 10).fill(429));
    }
    const payer = freshAddress();
    expect((await requests.status(token, payer)).status).toBe(200);
    expect((await requests.page(token, payer)).status).toBe(200);
    expect((await requests.start(token, payer)).status).toBe(303);
  });

  it("counts invalid starts of a link apart from real ones", async () => {
    const { token } = await newCheckout();
    // Invalid starts (a method that is none) from many addresses spend their own count of the link.
    const invalid = await statuses(LIMIT + 1, () => payerAt().post(`/c/${token}/start`, { pair: "none/none" }));
    expect(invalid.slice(0, LIMIT).every((status) => status >= 400 && status < 500 && status !== 429), String(invalid)).toBe(true);
    expect(invalid[LIMIT]).toBe(429);
    // A real start is still answered.
    expect((await payerAt().post(`/c/${token}/start`, { pair: "usdt/bep20" })).status).toBe(303);
  });
});

describe("the payment deadline", () => {
  it(
    "once passed, says do not send and expired_for_payment, never changes the intent, and names a late transfer",
    async () => {
      const { token } = await newCheckout("2.5");
      const payer = payerAt();
      const startRes = await payer.post(`/c/${token}/start`, { pair: "usdt/bep20" });
      expect(startRes.status, startRes.text).toBe(303);
      const intent = (await e2e.payins.getCheckoutByToken({ token })).intent!;
      const deadline = timestampDate(intent.expiresAt!).getTime();
      const local = e2e.chains!.rails.bep20;
      await mineBlocks(local, 1);
      const before = await eventually(
        () => payer.get(`/c/${token}/status`),
        (res) => res.json?.pay_in_status === "awaiting_payment",
        "the observer to watch the deposit address",
        30_000,
        1_000,
      );
      expect(before.json).toMatchObject({ presentation_state: "awaiting_payment", expired_for_payment: false, paid: false });
      expect(Date.now()).toBeLessThan(deadline);
      const readIntent = async () => (await e2e.payins.getPayInIntent({ merchantUuid, intentUuid: intent.intentUuid })).intent!;
      const statusBefore = (await readIntent()).status;
      expect(statusBefore).toBe(payinsV1.PayInStatus.AWAITING_PAYMENT);

      // The deadline must really pass: this wait is the point of the test.
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()) + 500));
      const after = await eventually(
        () => payer.get(`/c/${token}/status`),
        (res) => res.json?.expired_for_payment === true,
        "the status to say expired_for_payment",
        10_000,
        1_000,
      );
      expect(after.json).toMatchObject({
        presentation_state: "expired_for_payment",
        expired_for_payment: true,
        paid: false,
        pay_in_status: "awaiting_payment",
        address: intent.address,
      });
      expect(Date.parse(after.json.expires_at)).toBe(deadline);
      const unchanged = await readIntent();
      expect(unchanged.status).toBe(statusBefore);
      expect(timestampDate(unchanged.expiresAt!).getTime()).toBe(deadline);

      const page = await payer.get(`/c/${token}`);
      expect(page.status).toBe(200);
      expect(textOfHtml(page.text)).toMatch(/do not send/i);
      const qr = elementById(page.text, "qr-eip681");
      expect(qr === null || "hidden" in qr.attributes, "no QR code invites a payment after the deadline").toBe(true);
      expect(elementById(page.text, "start-form")).toBeNull();

      // A transfer after the deadline is late: it pays nothing, and the page says so.
      await transferToken(local, e2e.chains!.payer, "usdt", intent.address as Address, "2.5");
      await mineBlocks(local, 3);
      // The chain keeps making blocks while the observer catches up, as a live one does.
      await eventually(
        async () => {
          await mineBlocks(local, 1);
          return (await e2e.payins.listPayInTransfers({ merchantUuid, intentUuid: intent.intentUuid })).transfers;
        },
        (transfers) => transfers.some((t) => t.late && t.state === payinsV1.TransferState.SETTLED),
        "the late transfer to be recorded",
        60_000,
        1_000,
      );
      const late = await payer.get(`/c/${token}/status`);
      expect(late.json).toMatchObject({ paid: false, presentation_state: "expired_for_payment", pay_in_status: "awaiting_payment" });
      expect((await readIntent()).status).toBe(payinsV1.PayInStatus.AWAITING_PAYMENT);
      const latePage = await payer.get(`/c/${token}`);
      expect(textOfHtml(latePage.text)).toMatch(/late|after the deadline/i);
      expect(elementById(latePage.text, "receipt")).toBeNull();
    },
    240_000,
  );
});

describe("logs", () => {
  it("never hold a checkout token, even of a refused request", () => {
    expect(tokensUsed.length).toBeGreaterThan(60);
    const log = readPlatformLog(e2e);
    for (const token of tokensUsed) expect(log.includes(token), "a checkout token in the platform's log").toBe(false);
  });
});
