/**
 * The merchant's checkouts: creating one (the link shown once), form errors,
 * permissions, CSRF, disabling, the history with its states and evidence,
 * pagination, the overview and the profile.
 */
import { createHash } from "node:crypto";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { payinsV1 } from "@payin/proto";
import { ConnectError, reasonOf, toTimestamp } from "@payin/rpc";
import type { TestMerchant } from "@payin/testing";
import { checkoutCount, checkoutForm, payInCount, postPairs, setObserverCursors, signInFor, textOf } from "./merchant-support.js";
import {
  csrfTokenIn,
  elementById,
  expectNoInlineScriptOrStyle,
  expectSecurityHeaders,
  merchantPerson,
  PageClient,
  readyMerchant,
  textOfHtml,
  useCheckoutPlatform,
  type MerchantPerson,
} from "./support.js";

const e2e = useCheckoutPlatform();

const TOKEN_IN_TEXT = /\/c\/[A-Za-z0-9_-]{43}/;

let shop: TestMerchant;
let other: TestMerchant;
let adminPerson: MerchantPerson;
let admin: PageClient;
let member: PageClient;

beforeAll(async () => {
  shop = await readyMerchant(e2e, "Checkout Crafts");
  other = await readyMerchant(e2e, "Other Outfitters");
  adminPerson = await merchantPerson(e2e, [shop.uuid]);
  admin = await signInFor(e2e, adminPerson);
  member = await signInFor(e2e, await merchantPerson(e2e, [shop.uuid], { roles: ["merchant_member"] }));
}, 120_000);

// The test platform has no chains: the observer's cursors say it advanced just now.
beforeEach(async () => {
  await setObserverCursors(e2e.platform, { bep20: new Date(), erc20: new Date() });
});

/** A checkout made directly in payins (not through the pages), with its token. */
async function makeCheckout(merchant: TestMerchant, over: Partial<{ description: string; reference: string; amount: string }> = {}) {
  const res = await e2e.payins.createCheckoutSession({
    merchantUuid: merchant.uuid,
    description: over.description ?? "A direct checkout",
    reference: over.reference,
    amount: over.amount ?? "10.5",
    pairs: [{ asset: "usdt", rail: "bep20" }],
    jurisdiction: "DE",
  });
  return { uuid: res.session!.checkoutUuid, token: res.token };
}

const hex64 = (seed: string) => `0x${createHash("sha256").update(seed).digest("hex")}`;

/** Pays a started checkout's intent as the observer would report it: its address watched, then one settled transfer of the full amount. */
async function pay(intent: payinsV1.PayInIntent): Promise<string> {
  const txHash = hex64(`payment of ${intent.intentUuid}`);
  const amountBaseUnits = (BigInt(intent.expectedAmount.split(".")[0]!) * 10n ** 18n + BigInt((intent.expectedAmount.split(".")[1] ?? "").padEnd(18, "0") || "0")).toString();
  await e2e.payins.recordObservations({
    observations: [
      { intentUuid: intent.intentUuid, event: { case: "armed", value: { rail: "bep20", chainId: 31337n, fromBlock: 1n } } },
      {
        intentUuid: intent.intentUuid,
        event: {
          case: "transfer",
          value: {
            rail: "bep20",
            chainId: 31337n,
            txHash,
            logIndex: 0,
            asset: "usdt",
            decimals: 18,
            amountBaseUnits,
            fromAddress: `0x${"12".repeat(20)}`,
            toAddress: intent.address!.toLowerCase(),
            blockNumber: 10n,
            blockHash: hex64(`block of ${intent.intentUuid}`),
            blockTime: toTimestamp(new Date()),
            state: payinsV1.TransferState.SETTLED,
            version: 1,
            dust: false,
          },
        },
      },
    ],
  });
  return txHash;
}

async function stateOf(merchant: TestMerchant, checkoutUuid: string) {
  return (await e2e.payins.getCheckoutSession({ merchantUuid: merchant.uuid, checkoutUuid })).session!.state;
}

async function disable(client: PageClient, uuid: string, token?: string) {
  const page = await client.get("/merchant/checkouts");
  return client.post(`/merchant/checkouts/${uuid}/disable`, { csrf_token: token ?? csrfTokenIn(page.text) });
}

describe("merchant checkouts", () => {
  it("creates a checkout and shows its link once; the link works, and no page shows it again", async () => {
    const before = await checkoutCount(e2e, shop.uuid);
    const form = await admin.get("/merchant/checkouts/new");
    expect(form.status).toBe(200);
    expectSecurityHeaders(form);
    expectNoInlineScriptOrStyle(form.text);
    const pairs: [string, string][] = [
      ["csrf_token", csrfTokenIn(form.text)],
      ["description", "Order 7: a <b>bold</b> teapot"],
      ["amount", "25.500"],
      ["jurisdiction", "de"],
      ["reference", "INV-7"],
      ["pair", "usdt/bep20"],
      ["pair", "usdc/erc20"],
    ];
    const created = await postPairs(admin, "/merchant/checkouts/new", pairs);
    expect(created.status).toBe(201);
    expectSecurityHeaders(created);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const link = textOf(created.text, "checkout-link");
    expect(link).toMatch(/^https?:\/\/[^/]+\/c\/[A-Za-z0-9_-]{43}$/);
    expect(textOf(created.text, "shown-once")).toContain("This link is shown only once");
    expect(textOf(created.text, "shown-once")).toContain("Only a hash of it is kept");
    // The description is text, never markup.
    expect(created.text).toContain("a &lt;b&gt;bold&lt;/b&gt; teapot");
    expect(await checkoutCount(e2e, shop.uuid)).toBe(before + 1);

    const token = link.slice(link.lastIndexOf("/") + 1);
    const found = await e2e.payins.getCheckoutByToken({ token });
    expect(found.session).toMatchObject({ merchantUuid: shop.uuid, reference: "INV-7", description: "Order 7: a <b>bold</b> teapot", amount: "25.5", jurisdiction: "DE" });
    expect(found.session!.pairs.map((p) => `${p.asset}/${p.rail}`)).toEqual(["usdt/bep20", "usdc/erc20"]);
    expect(found.session!.state).toBe(payinsV1.CheckoutState.OPEN);
    // Creating a checkout allocates nothing.
    expect(found.intent).toBeUndefined();

    const list = await admin.get("/merchant/checkouts");
    const detail = await admin.get(`/merchant/checkouts/${found.session!.checkoutUuid}`);
    const dashboard = await admin.get("/merchant");
    for (const page of [list, detail, dashboard]) {
      expect(page.status).toBe(200);
      expect(page.text).not.toContain(token);
      expect(page.text).not.toMatch(TOKEN_IN_TEXT);
    }
    const row = textOf(list.text, `checkout-${found.session!.checkoutUuid}`);
    expect(row).toContain("INV-7");
    expect(row).toContain("25.5");
    expect(row).toContain("USDT on BNB Smart Chain (BEP20) or USDC on Ethereum (ERC20)");
    expect(row).toContain("Open: not started yet");
    expect(row).toContain("no pay-in yet");
  });

  it("shows the form again (400) with the typed values and each problem next to its field, creating nothing", async () => {
    const before = await checkoutCount(e2e, shop.uuid);
    const form = await admin.get("/merchant/checkouts/new");
    const csrf = csrfTokenIn(form.text);
    const bad = await admin.post("/merchant/checkouts/new", {
      csrf_token: csrf,
      description: "",
      amount: "1,50",
      jurisdiction: "XX",
      reference: "R".repeat(256),
    });
    expect(bad.status).toBe(400);
    expect(textOf(bad.text, "description-error")).toContain("Enter a description");
    expect(textOf(bad.text, "amount-error")).toContain("decimal string");
    expect(textOf(bad.text, "jurisdiction-error")).toContain("two-letter code of the country");
    expect(textOf(bad.text, "reference-error")).toContain("at most 255 characters");
    expect(textOf(bad.text, "pairs-error")).toContain("Choose at least one");
    expect(bad.text).toContain('value="1,50"');
    expect(bad.text).toContain('value="XX"');
    expect(elementById(bad.text, "amount")!.attributes["aria-invalid"]).toBe("true");
    for (const [amount, message] of [
      ["0", "greater than 0"],
      ["0.0000001", "at most 6 decimal places"],
      ["1000000000.01", "at most 1000000000"],
      ["1e3", "decimal string"],
      ["-5", "decimal string"],
    ] as const) {
      const res = await admin.post("/merchant/checkouts/new", checkoutForm(csrf, { amount }));
      expect(res.status, amount).toBe(400);
      expect(textOf(res.text, "amount-error"), amount).toContain(message);
      // The rest of what was typed stays.
      expect(res.text).toContain("Order 1001: two mugs");
      expect(elementById(res.text, "pair-usdt-bep20")!.attributes.checked).toBeDefined();
    }
    // A text the payer would read otherwise than it was written: a bidirectional override, a zero-width character.
    for (const [field, value] of [
      ["description", "Refund \u202Eredro 1001"],
      ["description", "Order\u200B 1001"],
      ["reference", "INV-\u20661001\u2069"],
    ] as const) {
      const res = await admin.post("/merchant/checkouts/new", checkoutForm(csrf, { [field]: value }));
      expect(res.status, value).toBe(400);
      expect(textOf(res.text, `${field}-error`), value).toContain("Remove the invisible or text-direction characters");
    }
    expect(await checkoutCount(e2e, shop.uuid)).toBe(before);
    // At the limits, it is created.
    const edge = await admin.post("/merchant/checkouts/new", checkoutForm(csrf, { amount: "1000000000", reference: "R".repeat(255), description: "D".repeat(500) }));
    expect(edge.status).toBe(201);
  });

  it("refuses (400) an amount that could never be paid on a chosen pair, naming its minimum next to the amount, creating nothing", async () => {
    const before = await checkoutCount(e2e, shop.uuid);
    const intentsBefore = await payInCount(e2e, shop.uuid);
    const form = await admin.get("/merchant/checkouts/new");
    expect(form.status, form.text).toBe(200);
    const csrf = csrfTokenIn(form.text);
    const dust = await admin.post("/merchant/checkouts/new", checkoutForm(csrf, { amount: "0.0005" }));
    expect(dust.status).toBe(400);
    expect(textOf(dust.text, "amount-error")).toContain("Amount must be at least 0.001 USDT on BEP20 (smaller transfers are dust and never count).");
    expect(elementById(dust.text, "amount")!.attributes["aria-invalid"]).toBe("true");
    // What was typed stays, to be corrected.
    expect(dust.text).toContain('value="0.0005"');
    expect(dust.text).toContain("Order 1001: two mugs");
    // With two pairs, the minimum of each applies (here USDC on ERC20's, the same 0.001 by default).
    const both = await postPairs(admin, "/merchant/checkouts/new", [
      ["csrf_token", csrf], ["description", "Two ways to pay"], ["amount", "0.0009"], ["jurisdiction", "DE"], ["pair", "usdc/erc20"], ["pair", "usdt/bep20"],
    ]);
    expect(both.status).toBe(400);
    expect(textOf(both.text, "amount-error")).toContain("Amount must be at least 0.001 USDC on ERC20");
    expect(await checkoutCount(e2e, shop.uuid)).toBe(before);
    expect(await payInCount(e2e, shop.uuid)).toBe(intentsBefore);
    // The minimum itself is taken.
    const edge = await admin.post("/merchant/checkouts/new", checkoutForm(csrf, { amount: "0.001" }));
    expect(edge.status).toBe(201);
    expect(await checkoutCount(e2e, shop.uuid)).toBe(before + 1);
  });

  it("lets a merchant_member see the lists but neither create nor disable a checkout", async () => {
    const open = await makeCheckout(shop, { reference: "MEMBER-SEES" });
    const before = await checkoutCount(e2e, shop.uuid);
    const list = await member.get("/merchant/checkouts");
    expect(list.status).toBe(200);
    expect(textOf(list.text, `checkout-${open.uuid}`)).toContain("MEMBER-SEES");
    expect(list.text).not.toContain('href="/merchant/checkouts/new"');
    const detail = await member.get(`/merchant/checkouts/${open.uuid}`);
    expect(detail.status).toBe(200);
    expect(detail.text).not.toContain("/disable");
    for (const path of ["/merchant", "/merchant/onboarding", "/merchant/profile"]) expect((await member.get(path)).status, path).toBe(200);

    const form = await member.get("/merchant/checkouts/new");
    expect(form.status).toBe(403);
    expect(textOfHtml(form.text)).toContain("not create or disable them");
    const csrf = csrfTokenIn(list.text);
    const create = await member.post("/merchant/checkouts/new", checkoutForm(csrf));
    expect(create.status).toBe(403);
    const refused = await member.post(`/merchant/checkouts/${open.uuid}/disable`, { csrf_token: csrf });
    expect(refused.status).toBe(403);
    expect(await checkoutCount(e2e, shop.uuid)).toBe(before);
    expect(await stateOf(shop, open.uuid)).toBe(payinsV1.CheckoutState.OPEN);
    // The admin's overview offers what the member's does not.
    expect((await admin.get("/merchant/checkouts")).text).toContain('href="/merchant/checkouts/new"');
  });

  it("refuses every form without the session's CSRF token (403) and changes nothing", async () => {
    const open = await makeCheckout(shop);
    const before = await checkoutCount(e2e, shop.uuid);
    const other = await signInFor(e2e, await merchantPerson(e2e, [shop.uuid]));
    // Another session's token is not this session's.
    const foreignToken = csrfTokenIn((await other.get("/merchant")).text);
    for (const token of [undefined, "", "forged-token", foreignToken]) {
      const fields = checkoutForm(token ?? "");
      if (token === undefined) delete fields.csrf_token;
      const create = await admin.post("/merchant/checkouts/new", fields);
      expect(create.status).toBe(403);
      expect(textOfHtml(create.text)).toContain("This form has expired or did not come from this page");
      expectSecurityHeaders(create);
      expect((await admin.post(`/merchant/checkouts/${open.uuid}/disable`, token === undefined ? {} : { csrf_token: token })).status).toBe(403);
    }
    // From another site, even with the right token.
    const page = await admin.get("/merchant/checkouts/new");
    expect((await admin.post("/merchant/checkouts/new", checkoutForm(csrfTokenIn(page.text)), { origin: "https://evil.example" })).status).toBe(403);
    expect(await checkoutCount(e2e, shop.uuid)).toBe(before);
    expect(await stateOf(shop, open.uuid)).toBe(payinsV1.CheckoutState.OPEN);
  });

  it("disables an open, unused checkout; a started or paid one never changes; another merchant's or a malformed one is 404", async () => {
    const open = await makeCheckout(shop, { reference: "TO-DISABLE" });
    const res = await disable(admin, open.uuid);
    expect(res.status).toBe(303);
    expect(res.location).toBe("/merchant/checkouts?notice=disabled");
    expect(await stateOf(shop, open.uuid)).toBe(payinsV1.CheckoutState.DISABLED);
    const list = await admin.get(res.location!);
    expect(textOf(list.text, "notice")).toContain("The checkout was disabled");
    expect(textOf(list.text, `checkout-${open.uuid}`)).toContain("Disabled");
    // The link now starts nothing.
    const startDisabled = await e2e.payins.startCheckout({ token: open.token }).catch((error: unknown) => error);
    expect(startDisabled instanceof ConnectError && reasonOf(startDisabled)).toBe("CHECKOUT_UNAVAILABLE");

    const started = await makeCheckout(shop, { reference: "STARTED" });
    const { intent } = await e2e.payins.startCheckout({ token: started.token });
    const refusedStarted = await disable(admin, started.uuid);
    expect(refusedStarted.status).toBe(409);
    expect(textOfHtml(refusedStarted.text)).toContain("This checkout has been used; it cannot be disabled");
    expect(await stateOf(shop, started.uuid)).toBe(payinsV1.CheckoutState.STARTED);

    await pay(intent!);
    expect(await stateOf(shop, started.uuid)).toBe(payinsV1.CheckoutState.PAID);
    const refusedPaid = await disable(admin, started.uuid);
    expect(refusedPaid.status).toBe(409);
    expect(await stateOf(shop, started.uuid)).toBe(payinsV1.CheckoutState.PAID);

    const foreign = await makeCheckout(other);
    for (const uuid of [foreign.uuid, "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "not-a-uuid", "0190A1B2"]) {
      const missing = await disable(admin, uuid);
      expect(missing.status, uuid).toBe(404);
      expect(textOfHtml(missing.text)).toContain("There is no such checkout in your merchant account");
      expect((await admin.get(`/merchant/checkouts/${uuid}`)).status, uuid).toBe(404);
    }
    expect(await stateOf(other, foreign.uuid)).toBe(payinsV1.CheckoutState.OPEN);
    // Disabling twice is harmless.
    expect((await disable(admin, open.uuid)).status).toBe(303);
  });

  it("shows each checkout's state, pay-in status, deposit address and settled transaction, and never allocates an address", async () => {
    const merchant = await readyMerchant(e2e, "History House");
    const client = await signInFor(e2e, await merchantPerson(e2e, [merchant.uuid]));
    const open = await makeCheckout(merchant, { reference: "H-OPEN" });
    const started = await makeCheckout(merchant, { reference: "H-STARTED" });
    const paid = await makeCheckout(merchant, { reference: "H-PAID" });
    const disabled = await makeCheckout(merchant, { reference: "H-DISABLED" });
    await e2e.payins.disableCheckoutSession({ merchantUuid: merchant.uuid, checkoutUuid: disabled.uuid });
    const startedIntent = (await e2e.payins.startCheckout({ token: started.token })).intent!;
    const paidIntent = (await e2e.payins.startCheckout({ token: paid.token })).intent!;
    const txHash = await pay(paidIntent);
    const intentsBefore = await payInCount(e2e, merchant.uuid);
    expect(intentsBefore).toBe(2);

    const list = await client.get("/merchant/checkouts");
    expect(list.status).toBe(200);
    expectNoInlineScriptOrStyle(list.text);
    const row = (c: { uuid: string }) => textOf(list.text, `checkout-${c.uuid}`);
    expect(row(open)).toContain("Open: not started yet");
    expect(row(open)).toContain("no pay-in yet");
    expect(row(started)).toContain("Started: awaiting payment");
    expect(row(started)).toMatch(/Pay-in status (Created|Awaiting payment)/);
    expect(row(started)).toContain(startedIntent.address!);
    expect(row(paid)).toContain("Paid");
    expect(row(paid)).toMatch(/Pay-in status Paid \( paid \)/);
    expect(row(paid)).toContain(paidIntent.address!);
    expect(row(paid)).toContain(`Settled transaction ${txHash}`);
    expect(row(started)).toContain("Settled transaction none");
    expect(row(disabled)).toContain("Disabled");
    // The presentation state each payer's page is in, by the contract's names.
    const presentation = (c: { uuid: string }) => /data-presentation-state="([a-z_]+)"/.exec(elementById(list.text, `checkout-${c.uuid}`)!.inner)?.[1];
    expect([open, started, paid, disabled].map(presentation)).toEqual(["ready_to_start", "awaiting_payment", "paid", "unavailable"]);
    expect(row(open)).toContain("Payment page Open: the payer can start ( ready_to_start )");
    // The payer's status poll says the same, with the pay-in's canonical status (this platform has no chain: `created` stays).
    const poll = async (token: string) => (await new PageClient(e2e.checkoutUrl).get(`/c/${token}/status`)).json;
    expect(await poll(started.token)).toMatchObject({ presentation_state: "awaiting_payment", pay_in_status: "created", paid: false, address: startedIntent.address });
    expect(await poll(paid.token)).toMatchObject({ presentation_state: "paid", pay_in_status: "paid", paid: true });
    expect(await poll(disabled.token)).toMatchObject({ presentation_state: "unavailable", pay_in_status: null, paid: false });
    // Newest first.
    expect(list.text.indexOf(`checkout-${disabled.uuid}`)).toBeLessThan(list.text.indexOf(`checkout-${open.uuid}`));

    const detail = await client.get(`/merchant/checkouts/${paid.uuid}`);
    expect(detail.status).toBe(200);
    const payIn = textOf(detail.text, "checkout-payin");
    expect(payIn).toContain(paidIntent.intentUuid);
    expect(payIn).toContain("Received (settled) 10.5");
    expect(payIn).toContain(txHash);
    expect(payIn).toContain("Counts toward the payment");
    expect(detail.text).not.toContain("/disable");
    const openDetail = await client.get(`/merchant/checkouts/${open.uuid}`);
    expect(openDetail.text).toContain(`action="/merchant/checkouts/${open.uuid}/disable"`);

    // Visiting every page allocated nothing and started nothing.
    for (const path of ["/merchant", "/merchant/onboarding", "/merchant/profile", "/merchant/checkouts/new", `/merchant/checkouts/${open.uuid}`]) {
      expect((await client.get(path)).status, path).toBe(200);
    }
    expect(await payInCount(e2e, merchant.uuid)).toBe(intentsBefore);
    expect(await stateOf(merchant, open.uuid)).toBe(payinsV1.CheckoutState.OPEN);
  });

  it("pages the history 20 at a time, newest first, and answers a bad page number with a readable 400", async () => {
    const merchant = await readyMerchant(e2e, "Paging Parlour");
    const client = await signInFor(e2e, await merchantPerson(e2e, [merchant.uuid]));
    const made: string[] = [];
    for (let i = 1; i <= 23; i++) made.push((await makeCheckout(merchant, { reference: `P-${String(i).padStart(2, "0")}` })).uuid);
    const first = await client.get("/merchant/checkouts");
    expect(textOf(first.text, "checkouts-summary")).toBe("Checkouts 1 to 20 of 23, newest first.");
    expect(first.text.match(/<li class="card" id="checkout-/g)).toHaveLength(20);
    expect(first.text).toContain(`id="checkout-${made[22]}"`);
    expect(first.text).not.toContain(`id="checkout-${made[2]}"`);
    expect(first.text).toContain('href="/merchant/checkouts?page=2" rel="next"');
    const second = await client.get("/merchant/checkouts?page=2");
    expect(textOf(second.text, "checkouts-summary")).toBe("Checkouts 21 to 23 of 23, newest first.");
    expect(second.text.match(/<li class="card" id="checkout-/g)).toHaveLength(3);
    for (const uuid of made.slice(0, 3)) expect(second.text).toContain(`id="checkout-${uuid}"`);
    expect(second.text).toContain('href="/merchant/checkouts?page=1" rel="prev"');
    expect(second.text).not.toContain('rel="next"');
    const beyond = await client.get("/merchant/checkouts?page=9");
    expect(beyond.status).toBe(200);
    expect(textOf(beyond.text, "checkouts-summary")).toContain("this page has none");
    for (const page of ["0", "-1", "abc", "1.5", "99999999"]) {
      const res = await client.get(`/merchant/checkouts?page=${page}`);
      expect(res.status, page).toBe(400);
      expect(textOfHtml(res.text)).toContain("The page number must be a whole number from 1");
    }

    // The overview shows the five latest checkouts and pay-ins.
    const started = await makeCheckout(merchant, { reference: "P-STARTED" });
    await e2e.payins.startCheckout({ token: started.token });
    const dashboard = await client.get("/merchant");
    const recent = textOf(dashboard.text, "recent-checkouts");
    expect(recent).toContain("P-STARTED");
    for (const reference of ["P-23", "P-22", "P-21", "P-20"]) expect(recent).toContain(reference);
    expect(recent).not.toContain("P-19");
    expect(recent).toContain("All checkouts (24)");
    const payIns = textOf(dashboard.text, "recent-payins");
    expect(payIns).toContain("10.5");
    expect(payIns).toContain("USDT on BNB Smart Chain (BEP20)");
  });

  it("shows the merchant and the signed-in person on the profile", async () => {
    const page = await admin.get("/merchant/profile");
    expect(page.status).toBe(200);
    expectNoInlineScriptOrStyle(page.text);
    const merchantText = textOf(page.text, "merchant-profile");
    expect(merchantText).toContain("Checkout Crafts");
    expect(merchantText).toContain(shop.uuid);
    expect(merchantText).toContain("Status active");
    const person = textOf(page.text, "person-profile");
    expect(person).toContain(adminPerson.email);
    expect(person).toContain("merchant_admin");
    expect(person).toContain("Two-factor authentication Off");
  });
});

describe("a membership's removal and its role, per merchant", () => {
  /** Acts for `merchantUuid` from now on (the person belongs to several). */
  async function choose(client: PageClient, merchantUuid: string): Promise<void> {
    const page = await client.get("/merchant/choose");
    expect((await client.post("/merchant/choose", { csrf_token: csrfTokenIn(page.text), merchant_uuid: merchantUuid })).status).toBe(303);
  }

  it("refuses a signed-in member's very next page once the membership is removed; another merchant's pages still open", async () => {
    const alone = await merchantPerson(e2e, [shop.uuid], { roles: ["merchant_member"] });
    const client = await signInFor(e2e, alone);
    expect((await client.get("/merchant/checkouts")).status).toBe(200);
    await e2e.operator.merchants.removeMember({ merchantUuid: shop.uuid, identityUuid: alone.uuid });
    for (const path of ["/merchant", "/merchant/checkouts", "/merchant/onboarding"]) {
      const refused = await client.get(path);
      expect(refused.status, path).toBe(403);
      expect(textOfHtml(refused.text)).toContain("not a member of any merchant");
      expect(refused.text).not.toContain("Checkout Crafts");
    }

    // A person of two merchants acting for the removed one: its pages are gone, the other merchant's remain.
    const both = await merchantPerson(e2e, [shop.uuid, other.uuid], { roles: ["merchant_member"] });
    const person = await signInFor(e2e, both, shop.uuid);
    expect(textOf((await person.get("/merchant")).text, "merchant-name")).toBe("Checkout Crafts");
    await e2e.operator.merchants.removeMember({ merchantUuid: shop.uuid, identityUuid: both.uuid });
    const next = await person.get("/merchant/checkouts");
    expect(next.status).toBe(200);
    expect(textOf(next.text, "merchant-name")).toBe("Other Outfitters");
    expect(next.text).not.toContain("Checkout Crafts");
    // Choosing the removed merchant again is refused.
    const page = await person.get("/merchant/choose");
    expect((await person.post("/merchant/choose", { csrf_token: csrfTokenIn(page.text), merchant_uuid: shop.uuid })).status).toBe(403);
  });

  it("lets a person manage checkouts of the merchant where its role is merchant_admin, not of the one where it is merchant_member", async () => {
    const [adminOf, memberOf] = [await readyMerchant(e2e, "Role Admin Shop"), await readyMerchant(e2e, "Role Member Shop")];
    // The identity's own role is merchant_admin; the membership of the second merchant says merchant_member.
    const person = await merchantPerson(e2e, []);
    await e2e.operator.merchants.ensureMember({ merchantUuid: adminOf.uuid, identityUuid: person.uuid, role: "merchant_admin" });
    await e2e.operator.merchants.ensureMember({ merchantUuid: memberOf.uuid, identityUuid: person.uuid, role: "merchant_member" });
    const client = await signInFor(e2e, person, adminOf.uuid);

    const form = await client.get("/merchant/checkouts/new");
    expect(form.status).toBe(200);
    const created = await client.post("/merchant/checkouts/new", checkoutForm(csrfTokenIn(form.text), { reference: "ROLE-ADMIN" }));
    expect(created.status, textOfHtml(created.text)).toBe(201);
    expect(await checkoutCount(e2e, adminOf.uuid)).toBe(1);

    await choose(client, memberOf.uuid);
    const list = await client.get("/merchant/checkouts");
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('href="/merchant/checkouts/new"');
    const refusedForm = await client.get("/merchant/checkouts/new");
    expect(refusedForm.status).toBe(403);
    expect(textOfHtml(refusedForm.text)).toContain("not create or disable them");
    expect((await client.post("/merchant/checkouts/new", checkoutForm(csrfTokenIn(list.text)))).status).toBe(403);
    expect(await checkoutCount(e2e, memberOf.uuid)).toBe(0);

    // A role changed applies to the next page; the identity's own role did not change.
    await e2e.operator.merchants.ensureMember({ merchantUuid: memberOf.uuid, identityUuid: person.uuid, role: "merchant_admin" });
    expect((await client.get("/merchant/checkouts/new")).status).toBe(200);

    // The other way round: a merchant_member identity made merchant_admin of one merchant manages that one's checkouts.
    const promoted = await merchantPerson(e2e, [], { roles: ["merchant_member"] });
    await e2e.operator.merchants.ensureMember({ merchantUuid: adminOf.uuid, identityUuid: promoted.uuid, role: "merchant_admin" });
    expect((await (await signInFor(e2e, promoted)).get("/merchant/checkouts/new")).status).toBe(200);
  });

  it("refuses a form shown for a merchant the person no longer acts for (removed meanwhile): 409, and no checkout for the one left", async () => {
    const [first, second] = [await readyMerchant(e2e, "Stale Form Shop"), await readyMerchant(e2e, "Remaining Shop")];
    const person = await merchantPerson(e2e, [first.uuid, second.uuid]);
    const client = await signInFor(e2e, person, first.uuid);
    const form = await client.get("/merchant/checkouts/new");
    expect(form.status).toBe(200);
    // The area's forms name the merchant they were shown for.
    expect(form.text).toContain(`name="merchant_uuid" value="${first.uuid}"`);
    await e2e.operator.merchants.removeMember({ merchantUuid: first.uuid, identityUuid: person.uuid });
    const stale = await client.post("/merchant/checkouts/new", { ...checkoutForm(csrfTokenIn(form.text), { reference: "STALE-1" }), merchant_uuid: first.uuid });
    expect(stale.status, textOfHtml(stale.text)).toBe(409);
    expect(textOfHtml(stale.text)).toMatch(/nothing was changed/i);
    expect(await checkoutCount(e2e, second.uuid)).toBe(0);
    expect(await checkoutCount(e2e, first.uuid)).toBe(0);
    // A form shown for the merchant it now acts for goes through.
    const fresh = await client.get("/merchant/checkouts/new");
    expect(fresh.text).toContain(`name="merchant_uuid" value="${second.uuid}"`);
    const created = await client.post("/merchant/checkouts/new", { ...checkoutForm(csrfTokenIn(fresh.text), { reference: "FRESH-1" }), merchant_uuid: second.uuid });
    expect(created.status, textOfHtml(created.text)).toBe(201);
    expect(await checkoutCount(e2e, second.uuid)).toBe(1);
  });
});
