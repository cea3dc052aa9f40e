/**
 * The payer's pages over HTTP, as a payer without JavaScript meets them: the
 * whole platform on two local chains, checkouts created over payins' RPC,
 * payments made with real token transfers. Rate limits are raised here (they
 * have their own file), so a test may ask as often as it needs.
 */
import { randomBytes } from "node:crypto";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { ANVIL_MNEMONIC, mineBlocks, transferToken, type LocalRail } from "@payin/local-chains";
import { merchantsV1, payinsV1 } from "@payin/proto";
import { erc20Abi, getAddress, parseUnits, type Address, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { signInFor } from "./merchant-support.js";
import {
  awaitReadiness,
  decodeSvgQr,
  elementById,
  eventually,
  expectNoInlineScriptOrStyle,
  expectSecurityHeaders,
  merchantPerson,
  PageClient,
  readPlatformLog,
  readyMerchant,
  textOfHtml,
  useCheckoutPlatform,
  type PageResponse,
} from "./support.js";

const e2e = useCheckoutPlatform({ chains: true, env: { RATE_LIMIT_PUBLIC_PER_IP: "100000", RATE_LIMIT_PUBLIC_PER_TOKEN: "100000" } });

/** The public status payload, exactly as docs/checkout.md ("Status payload") lists it. */
const STATUS_KEYS = [
  "address",
  "asset",
  "description",
  "expected_amount",
  "expired_for_payment",
  "expires_at",
  "merchant_display_name",
  "paid",
  "pay_in_status",
  "presentation_state",
  "rail",
];

type Pair = "usdt/bep20" | "usdc/erc20";
const NAMED: Record<Pair, string> = { "usdt/bep20": "USDT on BNB Smart Chain (BEP20)", "usdc/erc20": "USDC on Ethereum (ERC20)" };

/** Every checkout token handed out in this file, for the log check at its end. */
const tokensUsed: string[] = [];

interface Shop {
  uuid: string;
  name: string;
}

/** A fresh merchant, Ready on both pairs (a fresh one per test that counts intents). */
async function shop(name: string): Promise<Shop> {
  const merchant = await readyMerchant(e2e, name);
  await awaitReadiness(e2e, merchant.uuid);
  return { uuid: merchant.uuid, name };
}

async function newCheckout(
  merchant: Shop,
  options: { amount?: string; pairs?: Pair[]; description?: string | null; reference?: string; jurisdiction?: string } = {},
): Promise<{ token: string; checkoutUuid: string; amount: string; description: string | undefined; reference: string }> {
  const amount = options.amount ?? "12.5";
  const description = options.description === null ? undefined : (options.description ?? "Order 1001: a blue teapot");
  const reference = options.reference ?? `order-${randomBytes(4).toString("hex")}`;
  const { session, token } = await e2e.payins.createCheckoutSession({
    merchantUuid: merchant.uuid,
    amount,
    pairs: (options.pairs ?? ["usdt/bep20"]).map((pair) => {
      const [asset, rail] = pair.split("/") as [string, string];
      return { asset, rail };
    }),
    jurisdiction: options.jurisdiction ?? "DE",
    description,
    reference,
  });
  tokensUsed.push(token);
  return { token, checkoutUuid: session!.checkoutUuid, amount, description, reference };
}

async function intentCount(merchant: Shop): Promise<number> {
  return Number((await e2e.payins.listPayInIntents({ merchantUuid: merchant.uuid, limit: 100, offset: 0 })).total);
}

async function intentOf(token: string): Promise<payinsV1.PayInIntent | undefined> {
  return (await e2e.payins.getCheckoutByToken({ token })).intent;
}

const payer = () => new PageClient(e2e.checkoutUrl);
const status = (token: string) => payer().get(`/c/${token}/status`);

async function start(token: string, form: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<PageResponse> {
  return payer().post(`/c/${token}/start`, form, headers);
}

/** Starts the checkout as a payer does and answers its intent. */
async function started(token: string, pair?: Pair): Promise<payinsV1.PayInIntent> {
  const res = await start(token, pair ? { pair } : {});
  expect(res.status, res.text).toBe(303);
  const intent = await intentOf(token);
  expect(intent).toBeDefined();
  return intent!;
}

function expectHtmlPage(res: PageResponse, statusCode: number): void {
  expect(res.status, res.text.slice(0, 500)).toBe(statusCode);
  expect(res.headers.get("content-type")).toMatch(/^text\/html;\s*charset=utf-8$/i);
  expect(res.text).toMatch(/<html lang="en"/);
  expect(res.text).toMatch(/<meta charset="utf-8"/i);
  expect(res.text).toMatch(/<h1[\s>]/);
  expect(res.text).not.toMatch(/\bat .+\.(ts|js):\d+/); // no stack trace
  expect(res.headers.get("cache-control")).toBe("no-store");
  expectSecurityHeaders(res);
  expectNoInlineScriptOrStyle(res.text);
}

function element(res: PageResponse, id: string) {
  const found = elementById(res.text, id);
  expect(found, `the page has #${id}`).not.toBeNull();
  return found!;
}

const withoutSpaces = (text: string) => text.replace(/\s+/g, "");
const timeOf = (intent: payinsV1.PayInIntent) => timestampDate(intent.expiresAt!).getTime();
const railOf = (pair: Pair): LocalRail => e2e.chains!.rails[pair.endsWith("bep20") ? "bep20" : "erc20"];

/** The EIP-681 token transfer a wallet reads from the QR code. */
function eip681(pair: Pair, intent: payinsV1.PayInIntent): string {
  const local = railOf(pair);
  const token = local.tokens[pair.startsWith("usdt") ? "usdt" : "usdc"];
  return `ethereum:${getAddress(token.address)}@${local.chain.chainId}/transfer?address=${intent.address}&uint256=${parseUnits(intent.expectedAmount, token.decimals)}`;
}

/** Pays `amount` of the pair's token to the intent's address once the observer watches it, and mines the blocks that settle it. */
async function pay(token: string, pair: Pair, amount: string, to: string): Promise<Hex> {
  const local = railOf(pair);
  await mineBlocks(local, 1);
  await eventually(
    async () => (await status(token)).json?.pay_in_status,
    (value) => value === "awaiting_payment",
    "the observer to watch the deposit address",
  );
  const tx = await transferToken(local, e2e.chains!.payer, pair.startsWith("usdt") ? "usdt" : "usdc", to as Address, amount);
  await mineBlocks(local, 3);
  return tx;
}

/** Waits until payins counts `received` as settled for the intent. */
async function settled(merchant: Shop, intent: payinsV1.PayInIntent, received: string): Promise<void> {
  await eventually(
    async () => (await e2e.payins.listPayInTransfers({ merchantUuid: merchant.uuid, intentUuid: intent.intentUuid })).receivedAmount,
    (value) => value === received,
    `${received} to be received and settled`,
  );
}

let shared: Shop;

beforeAll(async () => {
  shared = await shop("Café Zürich — Teapots & Co");
}, 120_000);

describe("the payer page before a start", () => {
  it("shows what is asked, by whom, and a choice of method, and creates nothing", async () => {
    const merchant = await shop("Bäckerei Ünal & Söhne");
    const checkout = await newCheckout(merchant, {
      amount: "25.75",
      pairs: ["usdt/bep20", "usdc/erc20"],
      description: 'Gift card <b>50 €</b> & "thanks"',
    });
    for (let i = 0; i < 3; i++) {
      const page = await payer().get(`/c/${checkout.token}`);
      expectHtmlPage(page, 200);
      const text = textOfHtml(page.text);
      expect(text).toContain("Bäckerei Ünal & Söhne");
      expect(text).toContain('Gift card <b>50 €</b> & "thanks"');
      expect(page.text, "the description is escaped, never markup").not.toContain("<b>50 €</b>");
      expect(text).toContain("25.75");
      const form = element(page, "start-form");
      expect(form.tag).toBe("form");
      expect(form.attributes.method?.toLowerCase()).toBe("post");
      expect(form.attributes.action).toBe(`/c/${checkout.token}/start`);
      const radios = [...form.inner.matchAll(/<input\b[^>]*>/g)].map((m) => m[0]).filter((input) => /type="radio"/.test(input));
      expect(radios.map((input) => /value="([^"]*)"/.exec(input)?.[1])).toEqual(["usdt/bep20", "usdc/erc20"]);
      for (const radio of radios) expect(radio).toMatch(/name="pair"/);
      expect(form.text).toContain(NAMED["usdt/bep20"]);
      expect(form.text).toContain(NAMED["usdc/erc20"]);
    }
    const read = await e2e.payins.getCheckoutByToken({ token: checkout.token });
    expect(read.intent).toBeUndefined();
    expect(read.session!.state).toBe(payinsV1.CheckoutState.OPEN);
    expect(await intentCount(merchant)).toBe(0);

    const res = await status(checkout.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expectSecurityHeaders(res);
    expect(Object.keys(res.json).sort()).toEqual(STATUS_KEYS);
    expect(res.json).toEqual({
      presentation_state: "select_method",
      description: 'Gift card <b>50 €</b> & "thanks"',
      merchant_display_name: "Bäckerei Ünal & Söhne",
      expected_amount: "25.75",
      expires_at: null,
      paid: false,
      expired_for_payment: false,
      asset: null,
      rail: null,
      address: null,
      pay_in_status: null,
    });
    expect(await intentCount(merchant)).toBe(0);
  });

  it("with one method, names it and offers to start at once", async () => {
    const checkout = await newCheckout(shared, { amount: "7", pairs: ["usdc/erc20"], description: null });
    const page = await payer().get(`/c/${checkout.token}`);
    expectHtmlPage(page, 200);
    expect(textOfHtml(page.text)).toContain(NAMED["usdc/erc20"]);
    expect(textOfHtml(page.text)).not.toMatch(/\b(undefined|null|NaN)\b/);
    const form = element(page, "start-form");
    expect(form.inner).not.toMatch(/type="radio"/);
    expect(form.inner).toMatch(/<button\b|type="submit"/);
    const res = await status(checkout.token);
    expect(res.json).toMatchObject({ presentation_state: "ready_to_start", asset: "usdc", rail: "erc20", expected_amount: "7", pay_in_status: null, address: null, paid: false, description: null });
    expect(await intentOf(checkout.token)).toBeUndefined();
  });
});

describe("the page's assets", () => {
  it("are the gateway's own style sheet and script, both served", async () => {
    const page = await payer().get(`/c/${(await newCheckout(shared)).token}`);
    const sheets = [...page.text.matchAll(/<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]);
    const scripts = [...page.text.matchAll(/<script\b[^>]*src="([^"]+)"/g)].map((m) => m[1]);
    expect(sheets).toEqual(["/hosted-checkout/app.css"]);
    expect(scripts).toEqual(["/hosted-checkout/status.js"]);
    const css = await payer().get("/hosted-checkout/app.css");
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    expect(css.text.length).toBeGreaterThan(100);
    expectSecurityHeaders(css);
    const js = await payer().get("/hosted-checkout/status.js");
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/^(text|application)\/javascript/);
    expectSecurityHeaders(js);
  });
});

describe("starting a payment", () => {
  it("redirects to the page with one new intent; a second start, with either method, creates no second one", async () => {
    const merchant = await shop("Start Once Shop");
    const checkout = await newCheckout(merchant, { pairs: ["usdt/bep20", "usdc/erc20"] });
    const first = await start(checkout.token, { pair: "usdt/bep20" });
    expect(first.status, first.text).toBe(303);
    expect(new URL(first.location!, e2e.checkoutUrl).pathname).toBe(`/c/${checkout.token}`);
    expectSecurityHeaders(first);
    const intent = (await intentOf(checkout.token))!;
    expect(intent).toMatchObject({ asset: "usdt", rail: "bep20", expectedAmount: "12.5" });
    expect(await intentCount(merchant)).toBe(1);

    for (const pair of ["usdt/bep20", "usdc/erc20"]) {
      const again = await start(checkout.token, { pair });
      expect(again.status, again.text).toBe(303);
      expect(new URL(again.location!, e2e.checkoutUrl).pathname).toBe(`/c/${checkout.token}`);
    }
    expect(await intentCount(merchant)).toBe(1);
    expect((await intentOf(checkout.token))!.intentUuid).toBe(intent.intentUuid);
    const res = await status(checkout.token);
    expect(res.json).toMatchObject({ asset: "usdt", rail: "bep20", address: intent.address });
  });

  it("a hundred concurrent starts create exactly one intent", async () => {
    const merchant = await shop("Busy Shop");
    const checkout = await newCheckout(merchant);
    const answers = await Promise.all(Array.from({ length: 100 }, () => start(checkout.token, { pair: "usdt/bep20" })));
    // Each is sent to the page (303), or told the payment is being prepared (409) while another start holds it; never a fault.
    expect(answers.filter((res) => res.status !== 303 && res.status !== 409).map((res) => res.status)).toEqual([]);
    expect(answers.filter((res) => res.status === 303).length).toBeGreaterThan(0);
    expect(await intentCount(merchant)).toBe(1);
    expect((await status(checkout.token)).json.address).toBe((await intentOf(checkout.token))!.address);
  });

  it("refuses a method the checkout does not offer, or none of several, with a page, creating nothing", async () => {
    const merchant = await shop("Picky Shop");
    const one = await newCheckout(merchant, { pairs: ["usdt/bep20"] });
    const several = await newCheckout(merchant, { pairs: ["usdt/bep20", "usdc/erc20"] });
    for (const [token, form] of [
      [one.token, { pair: "usdc/erc20" }],
      [one.token, { pair: "dogecoin/bitcoin" }],
      [several.token, {}],
      [several.token, { pair: "" }],
      [several.token, { pair: "usdt/erc20" }],
    ] as const) {
      const res = await start(token, form);
      expectHtmlPage(res, 400);
    }
    expect(await intentCount(merchant)).toBe(0);
    expect((await status(one.token)).json.presentation_state).toBe("ready_to_start");
    expect((await status(several.token)).json.presentation_state).toBe("select_method");
    // A form in another encoding is refused too, never a server error.
    const json = await payer().request("POST", `/c/${one.token}/start`, { body: JSON.stringify({ pair: "usdt/bep20" }), headers: { "content-type": "application/json" } });
    expect(json.status).toBeGreaterThanOrEqual(400);
    expect(json.status).toBeLessThan(500);
    expect(await intentCount(merchant)).toBe(0);
  });

  it("refuses a start posted from another site and creates nothing; its own pages' post starts", async () => {
    const merchant = await shop("Guarded Shop");
    const checkout = await newCheckout(merchant);
    const crossSite = await start(checkout.token, { pair: "usdt/bep20" }, { origin: "https://evil.example" });
    expectHtmlPage(crossSite, 403);
    const fetchSite = await start(checkout.token, { pair: "usdt/bep20" }, { "sec-fetch-site": "cross-site" });
    expectHtmlPage(fetchSite, 403);
    expect(await intentCount(merchant)).toBe(0);
    const own = await start(checkout.token, { pair: "usdt/bep20" }, { origin: new URL(e2e.checkoutUrl).origin, "sec-fetch-site": "same-origin" });
    expect(own.status, own.text).toBe(303);
    expect(await intentCount(merchant)).toBe(1);
  });

  it("a disabled checkout is unavailable: the page says so, a start is refused with 409 and creates nothing", async () => {
    const merchant = await shop("Closed Link Shop");
    const checkout = await newCheckout(merchant, { pairs: ["usdt/bep20", "usdc/erc20"] });
    await e2e.payins.disableCheckoutSession({ merchantUuid: merchant.uuid, checkoutUuid: checkout.checkoutUuid });
    const page = await payer().get(`/c/${checkout.token}`);
    expectHtmlPage(page, 200);
    expect(textOfHtml(page.text)).toMatch(/unavailable|no longer available|not available/i);
    expect(elementById(page.text, "start-form")).toBeNull();
    const res = await start(checkout.token, { pair: "usdt/bep20" });
    expectHtmlPage(res, 409);
    expect(await intentCount(merchant)).toBe(0);
    const answer = await status(checkout.token);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.json).sort()).toEqual(STATUS_KEYS);
    expect(answer.json).toMatchObject({ presentation_state: "unavailable", paid: false, pay_in_status: null, address: null, expired_for_payment: false });
  });

  it("a suspended merchant's checkout is unavailable and a start creates nothing", async () => {
    const merchant = await shop("Suspended Shop");
    const checkout = await newCheckout(merchant);
    expect((await status(checkout.token)).json.presentation_state).toBe("ready_to_start");
    await e2e.operator.transition(merchant.uuid, merchantsV1.MerchantTransition.SUSPEND);
    await eventually(
      async () => (await status(checkout.token)).json.presentation_state,
      (state) => state === "unavailable",
      "the checkout to be unavailable",
      15_000,
    );
    const page = await payer().get(`/c/${checkout.token}`);
    expectHtmlPage(page, 200);
    expect(textOfHtml(page.text)).toMatch(/unavailable|no longer available|not available/i);
    expect(elementById(page.text, "start-form")).toBeNull();
    const res = await start(checkout.token, { pair: "usdt/bep20" });
    expectHtmlPage(res, 409);
    expect(await intentCount(merchant)).toBe(0);
  });

  it("a checkout whose country's rule stops allowing pay-ins is unavailable: no start form, the status says so, a start creates nothing", async () => {
    const merchant = await shop("Rule Change Shop");
    // Created for FR while a rule allows it there (the merchant's provider is bound for FR).
    const checkout = await newCheckout(merchant, { jurisdiction: "FR", pairs: ["usdt/bep20", "usdc/erc20"] });
    expect((await status(checkout.token)).json.presentation_state).toBe("select_method");
    await e2e.operator.merchants.createRule({ capability: "crypto.payin", jurisdiction: "FR", effect: "deny" });
    try {
      // The page and the status ask readiness in the checkout's jurisdiction: a start would be refused, so none is offered.
      const answer = await status(checkout.token);
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ presentation_state: "unavailable", paid: false, pay_in_status: null, address: null });
      const page = await payer().get(`/c/${checkout.token}`);
      expectHtmlPage(page, 200);
      expect(textOfHtml(page.text)).toMatch(/unavailable|no longer available|not available/i);
      expect(elementById(page.text, "start-form")).toBeNull();
      const res = await start(checkout.token, { pair: "usdt/bep20" });
      expectHtmlPage(res, 409);
      expect(await intentCount(merchant)).toBe(0);
    } finally {
      await e2e.operator.merchants.createRule({ capability: "crypto.payin", jurisdiction: "FR", effect: "allow" });
    }
    // Allowed again: the same link offers its methods and starts.
    expect((await status(checkout.token)).json.presentation_state).toBe("select_method");
    expect((await started(checkout.token, "usdc/erc20")).rail).toBe("erc20");
  });
});

describe("the payment view", () => {
  it("shows the exact amount, token and network, chain id, contract, full address, the EIP-681 QR code and the deadline", async () => {
    const merchant = await shop("Payment View Shop");
    const checkout = await newCheckout(merchant, { amount: "12.5", pairs: ["usdt/bep20", "usdc/erc20"] });
    const intent = await started(checkout.token, "usdt/bep20");
    const local = railOf("usdt/bep20");
    const page = await payer().get(`/c/${checkout.token}`);
    expectHtmlPage(page, 200);
    expect(await intentCount(merchant)).toBe(1);

    expect(element(page, "amount").text).toBe("12.5");
    expect(element(page, "token-network").text).toBe(NAMED["usdt/bep20"]);
    expect(element(page, "chain-id").text.replace(/\D/g, "")).toBe(String(local.chain.chainId));
    // The contract as wallets and explorers print it: EIP-55 mixed case.
    expect(element(page, "token-contract").text).toBe(getAddress(local.tokens.usdt.address));
    const address = element(page, "address");
    expect(intent.address).toBe(getAddress(intent.address!));
    expect(withoutSpaces(address.text)).toBe(intent.address);
    expect(address.text, "never truncated").not.toMatch(/…|\.\.\./);
    // Copy buttons copy the bare amount and the full address.
    const copies = [...page.text.matchAll(/data-copy="([^"]*)"/g)].map((m) => m[1]);
    expect(copies).toContain("12.5");
    expect(copies).toContain(intent.address);
    expect(elementById(page.text, "copy-status")?.attributes["aria-live"]).toBe("polite");

    const eip681Qr = element(page, "qr-eip681");
    const addressQr = element(page, "qr-address");
    expect(eip681Qr.attributes).not.toHaveProperty("hidden");
    expect(addressQr.attributes).toHaveProperty("hidden");
    expect(eip681Qr.inner).toMatch(/<svg\b/);
    expect(addressQr.inner).toMatch(/<svg\b/);
    expect(decodeSvgQr(eip681Qr.inner)).toBe(eip681("usdt/bep20", intent));
    expect(decodeSvgQr(addressQr.inner)).toBe(intent.address);
    expect(element(page, "qr-switch").attributes.href).toMatch(/\?qr=address$/);

    const deadline = element(page, "deadline");
    expect(deadline.tag).toBe("time");
    expect(Date.parse(deadline.attributes.datetime!)).toBe(timeOf(intent));
    expect(deadline.text).not.toBe("");
    element(page, "countdown");

    const text = textOfHtml(page.text);
    expect(text, "a warning that another token or network may be lost").toMatch(/lost/i);
    expect(element(page, "payment-status").attributes["aria-live"]).toBe("polite");
    expect(element(page, "refresh-link").attributes.href).toBeDefined();
    expect(page.text).toMatch(/<noscript>\s*<meta http-equiv="refresh" content="10">\s*<\/noscript>/);
    expect(page.text).toMatch(/<script\b[^>]*src="\/hosted-checkout\/status\.js"/);
    expect(elementById(page.text, "start-form")).toBeNull();
    expect(elementById(page.text, "receipt")).toBeNull();
  });

  it("switches to the bare address's QR code with ?qr=address, and back", async () => {
    const checkout = await newCheckout(shared, { amount: "3.000001", pairs: ["usdc/erc20"] });
    const intent = await started(checkout.token);
    const page = await payer().get(`/c/${checkout.token}?qr=address`);
    expectHtmlPage(page, 200);
    const addressQr = element(page, "qr-address");
    expect(addressQr.attributes).not.toHaveProperty("hidden");
    expect(element(page, "qr-eip681").attributes).toHaveProperty("hidden");
    expect(decodeSvgQr(addressQr.inner)).toBe(intent.address);
    expect(element(page, "qr-switch").attributes.href).toMatch(/\?qr=eip681$/);
    expect(element(page, "amount").text).toBe("3.000001");
    expect(element(page, "token-network").text).toBe(NAMED["usdc/erc20"]);

    const back = await payer().get(`/c/${checkout.token}?qr=eip681`);
    expect(element(back, "qr-address").attributes).toHaveProperty("hidden");
    expect(decodeSvgQr(element(back, "qr-eip681").inner)).toBe(eip681("usdc/erc20", intent));
    // Anything else in the query is the default view, never an error.
    const odd = await payer().get(`/c/${checkout.token}?qr=%3Cscript%3E&qr=x&other=1`);
    expectHtmlPage(odd, 200);
    expect(odd.text).not.toContain("<script>");
    expect(element(odd, "qr-eip681").attributes).not.toHaveProperty("hidden");
  });

  it("answers the started checkout in its status", async () => {
    const checkout = await newCheckout(shared, { amount: "0.5", pairs: ["usdt/bep20", "usdc/erc20"], description: "Status shop order" });
    const intent = await started(checkout.token, "usdc/erc20");
    const res = await status(checkout.token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(STATUS_KEYS);
    expect(res.json).toMatchObject({
      presentation_state: "awaiting_payment",
      description: "Status shop order",
      merchant_display_name: shared.name,
      expected_amount: "0.5",
      paid: false,
      expired_for_payment: false,
      asset: "usdc",
      rail: "erc20",
      address: intent.address,
    });
    expect(["created", "awaiting_payment"]).toContain(res.json.pay_in_status);
    expect(res.json.expires_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(Date.parse(res.json.expires_at)).toBe(timeOf(intent));
    // Created: the observer arms it and the status follows.
    await mineBlocks(railOf("usdc/erc20"), 1);
    await eventually(async () => (await status(checkout.token)).json.pay_in_status, (value) => value === "awaiting_payment", "the intent to await payment");
  });
});

describe("paying", () => {
  it("an exact transfer turns the status and the page to paid, with a receipt naming the transaction", async () => {
    const merchant = await shop("Receipt Shop");
    const checkout = await newCheckout(merchant, { amount: "12.5", reference: "INV-2026-0042" });
    const intent = await started(checkout.token, "usdt/bep20");
    const tx = await pay(checkout.token, "usdt/bep20", "12.5", intent.address!);
    const paid = await eventually(() => status(checkout.token), (res) => res.json?.paid === true, "the checkout to be paid");
    expect(paid.json).toMatchObject({ presentation_state: "paid", pay_in_status: "paid", paid: true, expired_for_payment: false, address: intent.address });
    expect((await e2e.payins.getPayInIntent({ merchantUuid: merchant.uuid, intentUuid: intent.intentUuid })).intent!.status).toBe(payinsV1.PayInStatus.PAID);

    const page = await payer().get(`/c/${checkout.token}`);
    expectHtmlPage(page, 200);
    const receipt = element(page, "receipt");
    expect(withoutSpaces(receipt.text).toLowerCase()).toContain(tx.toLowerCase());
    expect(receipt.text).toContain("12.5");
    expect(receipt.text).toContain("Receipt Shop");
    expect(receipt.text).toContain("INV-2026-0042");
    expect(receipt.inner, "the receipt says when it was paid").toMatch(/<time\b[^>]*datetime="[^"]+"/);
    expect(element(page, "payment-status").text).toMatch(/paid/i);
    expect(page.text, "a paid page stops reloading itself").not.toMatch(/http-equiv="refresh"/);
    expect(elementById(page.text, "start-form")).toBeNull();
    expect(await intentCount(merchant)).toBe(1);
  });

  it("after a partial transfer, asks for what is left: headline, copy value and the EIP-681 code", async () => {
    const merchant = await shop("Partial Shop");
    const checkout = await newCheckout(merchant, { amount: "9.99" });
    const intent = await started(checkout.token, "usdt/bep20");
    const before = await payer().get(`/c/${checkout.token}`);
    expect(element(before, "send-title").text).toBe("Send exactly 9.99 USDT");
    expect(elementById(before.text, "received")).toBeNull();

    await pay(checkout.token, "usdt/bep20", "5", intent.address!);
    // Seen (pending or settled), the page asks for the rest.
    const page = await eventually(
      () => payer().get(`/c/${checkout.token}`),
      (res) => elementById(res.text, "received") !== null,
      "the page to show the partial payment",
    );
    expectHtmlPage(page, 200);
    expect(element(page, "received").text).toBe("Received 5 USDT of 9.99 USDT");
    expect(element(page, "send-title").text).toBe("Send the remaining 4.99 USDT");
    expect(element(page, "amount").text).toBe("4.99");
    const copies = [...page.text.matchAll(/data-copy="([^"]*)"/g)].map((m) => m[1]);
    expect(copies).toContain("4.99");
    expect(copies).not.toContain("9.99");
    const remaining = { ...intent, expectedAmount: "4.99" };
    expect(decodeSvgQr(element(page, "qr-eip681").inner)).toBe(eip681("usdt/bep20", remaining));
    expect(eip681("usdt/bep20", remaining)).toMatch(/&uint256=4990000000000000000$/);
    // The address's code asks the payer to enter the rest.
    expect(element(page, "qr-address").text).toContain("enter 4.99");

    await settled(merchant, intent, "5");
    const res = await status(checkout.token);
    expect(res.json).toMatchObject({ paid: false, pay_in_status: "awaiting_payment", presentation_state: "awaiting_payment", expected_amount: "9.99" });
    const settledPage = await payer().get(`/c/${checkout.token}`);
    expect(element(settledPage, "send-title").text).toBe("Send the remaining 4.99 USDT");
    expect(decodeSvgQr(element(settledPage, "qr-eip681").inner)).toBe(eip681("usdt/bep20", remaining));
    expect(textOfHtml(settledPage.text)).toContain("So far 5 USDT of 9.99 USDT has arrived.");
    expect(elementById(settledPage.text, "receipt")).toBeNull();

    // Paying what it asked for pays the intent: nothing over, nothing missing.
    await transferToken(railOf("usdt/bep20"), e2e.chains!.payer, "usdt", intent.address as Address, "4.99");
    await mineBlocks(railOf("usdt/bep20"), 3);
    await eventually(() => status(checkout.token), (r) => r.json?.paid === true, "the rest to pay the checkout");
    await settled(merchant, intent, "9.99");
    const paidPage = await payer().get(`/c/${checkout.token}`);
    element(paidPage, "receipt");
    expect(textOfHtml(paidPage.text)).not.toMatch(/more than/i);
  });

  it("three hundred zero-value transfers to the address keep the page small: a few listed, the rest counted", async () => {
    const merchant = await shop("Spammed Shop");
    const checkout = await newCheckout(merchant, { amount: "9.99" });
    const intent = await started(checkout.token, "usdt/bep20");
    const local = railOf("usdt/bep20");
    await mineBlocks(local, 1);
    await eventually(async () => (await status(checkout.token)).json?.pay_in_status, (value) => value === "awaiting_payment", "the observer to watch the deposit address");

    // Anyone may move zero tokens of anyone: transferFrom(payer, deposit address, 0) needs no allowance.
    const spammer = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 7 });
    const nonce = await local.publicClient.getTransactionCount({ address: spammer.address, blockTag: "pending" });
    const hashes = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        local.deployer.writeContract({
          address: local.tokens.usdt.address,
          abi: erc20Abi,
          functionName: "transferFrom",
          args: [e2e.chains!.payer.address, intent.address as Address, 0n],
          account: spammer,
          chain: local.viemChain,
          nonce: nonce + i,
          gas: 100_000n,
        }),
      ),
    );
    await eventually(
      async () => (await local.publicClient.getTransactionCount({ address: spammer.address, blockTag: "latest" })) - nonce,
      (mined) => mined >= 300,
      "the 300 transfers to be mined",
      60_000,
    );
    const receipt = await local.publicClient.getTransactionReceipt({ hash: hashes.at(-1)! });
    expect(receipt.status).toBe("success");
    await mineBlocks(local, 3);
    const seen = await eventually(
      async () => (await e2e.payins.listPayInTransfers({ merchantUuid: merchant.uuid, intentUuid: intent.intentUuid })).transfers,
      (transfers) => transfers.filter((t) => t.state === payinsV1.TransferState.SETTLED).length >= 300,
      "the 300 zero-value transfers to be kept as evidence",
      90_000,
    );
    expect(seen.every((t) => t.dust && t.amount === "0")).toBe(true);

    const page = await payer().get(`/c/${checkout.token}`);
    expectHtmlPage(page, 200);
    expect(Buffer.byteLength(page.text), "the page stays small").toBeLessThan(30_000);
    const messages = [...element(page, "evidence").inner.matchAll(/<li\b/g)];
    expect(messages.length).toBe(4);
    const evidence = element(page, "evidence").text;
    expect(evidence).toContain("And 297 more very small transfers that do not count.");
    expect(evidence.match(/A very small transfer of 0 USDT arrived/g)).toHaveLength(3);
    // Nothing that counts arrived: the exact amount is still what is asked.
    expect(element(page, "send-title").text).toBe("Send exactly 9.99 USDT");
    expect((await status(checkout.token)).json).toMatchObject({ paid: false, pay_in_status: "awaiting_payment" });

    // The merchant's detail of the checkout lists a few of them and counts the rest.
    const merchantArea = await signInFor(e2e, await merchantPerson(e2e, [merchant.uuid]));
    const detail = await merchantArea.get(`/merchant/checkouts/${checkout.checkoutUuid}`);
    expect(detail.status).toBe(200);
    expect(Buffer.byteLength(detail.text), "the merchant's page stays small").toBeLessThan(30_000);
    const payIn = element(detail, "checkout-payin");
    expect([...payIn.inner.matchAll(/<li\b/g)].length).toBe(5);
    expect(element(detail, "transfers-not-listed").text).toBe(
      "Not listed here: 295 more very small transfers (zero or below the dust threshold) that do not count. The API lists every transfer of this pay-in.",
    );
  }, 240_000);

  it("a payment after the checkout was paid is evidence: the payer is told it does not count, the merchant what to give back", async () => {
    const merchant = await shop("Twice Paid Shop");
    const checkout = await newCheckout(merchant, { amount: "12.5", reference: "INV-TWICE" });
    const intent = await started(checkout.token, "usdt/bep20");
    await pay(checkout.token, "usdt/bep20", "12.5", intent.address!);
    await eventually(() => status(checkout.token), (res) => res.json?.paid === true, "the checkout to be paid");

    // The payer pays again, a little less.
    const again = await transferToken(railOf("usdt/bep20"), e2e.chains!.payer, "usdt", intent.address as Address, "5");
    await mineBlocks(railOf("usdt/bep20"), 3);
    const listing = await eventually(
      () => e2e.payins.listPayInTransfers({ merchantUuid: merchant.uuid, intentUuid: intent.intentUuid }),
      (answer) => answer.afterPaidAmount === "5",
      "the second payment to be kept as settled after-paid evidence",
      60_000,
    );
    expect(listing.receivedAmount).toBe("12.5");
    expect(listing.transfers.find((t) => t.txHash === again)?.afterPaid).toBe(true);

    const page = await payer().get(`/c/${checkout.token}`);
    expectHtmlPage(page, 200);
    element(page, "receipt");
    expect(element(page, "payment-status").text).toBe("Paid. Thank you!");
    const evidence = element(page, "evidence").text;
    expect(evidence).toContain("A further 5 USDT arrived after this payment was complete. It does not count; contact Twice Paid Shop to get it back.");
    expect(withoutSpaces(evidence).toLowerCase()).toContain(again.toLowerCase());
    expect(evidence).not.toMatch(/more than/i);
    expect((await status(checkout.token)).json).toMatchObject({ paid: true, presentation_state: "paid" });

    const merchantArea = await signInFor(e2e, await merchantPerson(e2e, [merchant.uuid]));
    const detail = await merchantArea.get(`/merchant/checkouts/${checkout.checkoutUuid}`);
    expect(detail.status).toBe(200);
    expect(element(detail, "after-paid-amount").text).toBe("5 USDT on BNB Smart Chain (BEP20)");
    const payIn = element(detail, "checkout-payin").text;
    expect(payIn).toContain("Does not count: arrived after the pay-in was paid");
    expect(payIn).toContain("To give back: 5 USDT.");
    expect(payIn).toContain("Received (settled) 12.5");
  }, 180_000);

  it("an over-payment pays and says more than the amount was received", async () => {
    const merchant = await shop("Generous Payer Shop");
    const checkout = await newCheckout(merchant, { amount: "5", pairs: ["usdc/erc20"] });
    const intent = await started(checkout.token);
    await pay(checkout.token, "usdc/erc20", "7.25", intent.address!);
    const paid = await eventually(() => status(checkout.token), (res) => res.json?.paid === true, "the over-payment to pay");
    expect(paid.json).toMatchObject({ presentation_state: "paid", pay_in_status: "paid", expected_amount: "5" });
    await settled(merchant, intent, "7.25");
    const page = await payer().get(`/c/${checkout.token}`);
    expectHtmlPage(page, 200);
    const text = textOfHtml(page.text);
    expect(text).toMatch(/more than/i);
    expect(text).toContain("7.25");
    element(page, "receipt");
  });
});

describe("tokens that are no checkout", () => {
  const randomToken = () => randomBytes(32).toString("base64url");
  const badTokens = [
    randomToken(), // well-formed, unknown
    "abc", // too short
    `${"A".repeat(40)}*~!`, // characters a token never has
    "%F0%9F%92%B8".repeat(11), // not ASCII
    "A".repeat(2_000), // far too long
  ];

  it("the status answers the same generic 404 for every unknown or malformed token", async () => {
    const real = await newCheckout(shared);
    expect((await status(real.token)).status, "a real token is answered").toBe(200);
    const bodies: unknown[] = [];
    for (const token of badTokens) {
      const res = await status(token);
      expect(res.status, token).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expectSecurityHeaders(res);
      expect(Object.keys(res.json)).toEqual(["error"]);
      expect(Object.keys(res.json.error).sort()).toEqual(["code", "message", "request_id"]);
      expect(res.json.error.code).toBe("NOT_FOUND");
      expect(typeof res.json.error.request_id).toBe("string");
      expect(res.json.error.message).not.toContain(token);
      const { request_id: _requestId, ...rest } = res.json.error;
      bodies.push(rest);
    }
    for (const body of bodies) expect(body).toEqual(bodies[0]);
  });

  it("the page and the start answer a readable 404 page", async () => {
    const real = await newCheckout(shared);
    expect((await payer().get(`/c/${real.token}`)).status, "a real token is answered").toBe(200);
    for (const token of badTokens) {
      const page = await payer().get(`/c/${token}`);
      expectHtmlPage(page, 404);
      expect(elementById(page.text, "start-form")).toBeNull();
      const res = await start(token, { pair: "usdt/bep20" });
      expectHtmlPage(res, 404);
    }
  });
});

describe("logs", () => {
  it("never hold a checkout token", () => {
    expect(tokensUsed.length).toBeGreaterThan(10);
    const log = readPlatformLog(e2e);
    expect(log.length).toBeGreaterThan(0);
    for (const token of tokensUsed) expect(log.includes(token), "a checkout token in the platform's log").toBe(false);
  });
});
