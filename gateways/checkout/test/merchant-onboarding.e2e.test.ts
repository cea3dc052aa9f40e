/**
 * Readiness in the merchant area: the onboarding page names every failing
 * reason of each pair (each reason alone, and several at once), the overview
 * shows it at a glance, and creation is refused on it, creating nothing.
 */
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestMerchant } from "@payin/testing";
import {
  checkoutCount,
  checkoutForm,
  postPairs,
  READINESS_CODES,
  reasonCodesIn,
  setObserverCursors,
  signInFor,
  textOf,
} from "./merchant-support.js";
import { csrfTokenIn, expectNoInlineScriptOrStyle, expectSecurityHeaders, merchantPerson, PageClient, readyMerchant, textOfHtml, useCheckoutPlatform } from "./support.js";

const e2e = useCheckoutPlatform();

// Rules allow pay-ins in the tests' jurisdictions (DE, GB, FR; none allows US), whichever test runs first.
beforeAll(async () => {
  await e2e.operator.allowJurisdictions();
});

// The test platform has no chains: the observer's cursors say it advanced just now.
beforeEach(async () => {
  await setObserverCursors(e2e.platform, { bep20: new Date(), erc20: new Date() });
});

const PAIRS = ["usdt-bep20", "usdc-erc20"] as const;

/** A merchant admin of `merchant`, signed in. */
async function adminOf(merchant: TestMerchant): Promise<PageClient> {
  return signInFor(e2e, await merchantPerson(e2e, [merchant.uuid]));
}

/** The onboarding page, with each pair's shown reason codes. */
async function onboarding(client: PageClient): Promise<{ html: string; codes: Record<(typeof PAIRS)[number], string[]> }> {
  const page = await client.get("/merchant/onboarding");
  expect(page.status).toBe(200);
  expectSecurityHeaders(page);
  expectNoInlineScriptOrStyle(page.text);
  return { html: page.text, codes: { "usdt-bep20": reasonCodesIn(page.text, "readiness-usdt-bep20"), "usdc-erc20": reasonCodesIn(page.text, "readiness-usdc-erc20") } };
}

/** Tries to create a checkout with both pairs (sold in DE unless `jurisdiction`): refused (409) with `expected` reasons per pair, and nothing is created. */
async function expectCreationRefused(client: PageClient, merchant: TestMerchant, expected: Record<(typeof PAIRS)[number], string[]>, jurisdiction = "DE"): Promise<void> {
  const before = await checkoutCount(e2e, merchant.uuid);
  const form = await client.get("/merchant/checkouts/new");
  const fields = Object.entries(checkoutForm(csrfTokenIn(form.text), { pair: "usdt/bep20", jurisdiction })) as [string, string][];
  const res = await postPairs(client, "/merchant/checkouts/new", [...fields, ["pair", "usdc/erc20"]]);
  expect(res.status).toBe(409);
  for (const pair of PAIRS) expect(reasonCodesIn(textOrHtml(res.text, "refusal"), `readiness-${pair}`), pair).toEqual(expected[pair]);
  expect(textOfHtml(res.text)).toContain("Nothing was created");
  // The form keeps what was typed.
  expect(res.text).toContain('value="10.50"');
  expect(res.text).toContain("Order 1001: two mugs");
  expect(await checkoutCount(e2e, merchant.uuid)).toBe(before);
  expect(res.text).not.toMatch(/\/c\/[A-Za-z0-9_-]{43}/);
}

/** The inner HTML of the element `id` (the refusal section). */
function textOrHtml(html: string, id: string): string {
  const start = html.indexOf(`id="${id}"`);
  expect(start, `#${id} on the page`).toBeGreaterThan(0);
  return html.slice(start);
}

/** A reason alone, on both pairs: onboarding shows it in words with its code and what to ask for; creation refuses on it. */
async function expectOnlyReason(merchant: TestMerchant, code: string, words: string, ask: string): Promise<void> {
  const client = await adminOf(merchant);
  const { html, codes } = await onboarding(client);
  expect(codes).toEqual({ "usdt-bep20": [code], "usdc-erc20": [code] });
  const pairText = textOf(html, "readiness-usdt-bep20");
  expect(pairText).toContain("Not ready");
  expect(pairText).toContain(words);
  expect(pairText).toContain(ask);
  await expectCreationRefused(client, merchant, { "usdt-bep20": [code], "usdc-erc20": [code] });
}

describe("merchant readiness", () => {
  it("shows a fully set-up merchant Ready on both pairs, on the onboarding page and at a glance", async () => {
    const merchant = await readyMerchant(e2e, "Ready Rugs");
    const client = await adminOf(merchant);
    const { html, codes } = await onboarding(client);
    expect(codes).toEqual({ "usdt-bep20": [], "usdc-erc20": [] });
    expect(textOf(html, "readiness-usdt-bep20")).toContain("USDT on BNB Smart Chain (BEP20)");
    expect(textOf(html, "readiness-usdt-bep20")).toContain("Ready.");
    expect(textOf(html, "readiness-usdc-erc20")).toContain("USDC on Ethereum (ERC20)");
    expect(textOf(html, "readiness-overall")).toContain("Everything is ready");
    const dashboard = await client.get("/merchant");
    expect(textOf(dashboard.text, "glance-usdt-bep20")).toBe("USDT on BNB Smart Chain (BEP20): Ready");
    expect(textOf(dashboard.text, "glance-usdc-erc20")).toBe("USDC on Ethereum (ERC20): Ready");
  });

  it("names merchant_inactive alone for a merchant that is not active", async () => {
    await expectOnlyReason(await readyMerchant(e2e, "Inactive Inks", { activate: false }), "merchant_inactive", "Your merchant account is not active.", "Ask the platform to activate your merchant account.");
  });

  it("names operating_profile_missing alone for a merchant without an operating profile", async () => {
    const merchant = await readyMerchant(e2e, "Profileless Pens", { authorise: false });
    await e2e.operator.merchants.createPolicy({ merchantUuid: merchant.uuid, scope: "payin", effect: "allow" });
    await expectOnlyReason(merchant, "operating_profile_missing", "no operating profile", "Ask the platform to set up the operating profile");
  });

  it("names payin_not_allowed alone for a merchant whose policy does not allow pay-ins", async () => {
    const merchant = await readyMerchant(e2e, "Policyless Paper", { authorise: false });
    await e2e.operator.merchants.ensureOperatingProfile({ merchantUuid: merchant.uuid, operatingMode: "non_custodial" });
    await expectOnlyReason(merchant, "payin_not_allowed", "does not allow you to receive payments", "Ask the platform to allow pay-ins");
  });

  it("names wallet_not_ready alone for a merchant without a receiving wallet", async () => {
    await expectOnlyReason(await readyMerchant(e2e, "Walletless Wares", { xpub: null }), "wallet_not_ready", "No receiving wallet is registered", "Ask the platform to register your receiving wallet");
  });

  it("names provider_not_ready alone for a merchant connected to no network provider", async () => {
    await expectOnlyReason(await readyMerchant(e2e, "Providerless Prints", { provider: false }), "provider_not_ready", "cannot be watched", "network provider");
  });

  it("names provider_not_ready on the one pair whose network is not being watched, and keeps the other Ready", async () => {
    const merchant = await readyMerchant(e2e, "Stalled Stools");
    const client = await adminOf(merchant);
    await setObserverCursors(e2e.platform, { bep20: null, erc20: new Date() });
    const { codes } = await onboarding(client);
    expect(codes).toEqual({ "usdt-bep20": ["provider_not_ready"], "usdc-erc20": [] });
    const dashboard = await client.get("/merchant");
    expect(textOf(dashboard.text, "glance-usdt-bep20")).toContain("Not ready");
    expect(textOf(dashboard.text, "glance-usdc-erc20")).toContain("Ready");
    await expectCreationRefused(client, merchant, { "usdt-bep20": ["provider_not_ready"], "usdc-erc20": [] });
    // The Ready pair alone is created.
    const form = await client.get("/merchant/checkouts/new");
    const created = await client.post("/merchant/checkouts/new", checkoutForm(csrfTokenIn(form.text), { pair: "usdc/erc20" }));
    expect(created.status).toBe(201);
    expect(await checkoutCount(e2e, merchant.uuid)).toBe(1);
  });

  it("names asset_not_configured alone when a form asks for a pair the platform does not serve, and creates nothing", async () => {
    const merchant = await readyMerchant(e2e, "Configured Crates");
    const client = await adminOf(merchant);
    const form = await client.get("/merchant/checkouts/new");
    // The form offers only served pairs; a hand-made post asks for USDT on Ethereum.
    expect(form.text).not.toContain('value="usdt/erc20"');
    const res = await client.post("/merchant/checkouts/new", checkoutForm(csrfTokenIn(form.text), { pair: "usdt/erc20" }));
    expect(res.status).toBe(409);
    expect(reasonCodesIn(textOrHtml(res.text, "refusal"), "readiness-usdt-erc20")).toEqual(["asset_not_configured"]);
    expect(textOf(res.text, "readiness-usdt-erc20")).toContain("The platform does not offer this token on this network.");
    expect(await checkoutCount(e2e, merchant.uuid)).toBe(0);
  });

  it("refuses a checkout for a country where no rule allows pay-ins (US), naming payin_not_allowed, and creates nothing, though the merchant is Ready", async () => {
    const merchant = await readyMerchant(e2e, "Borderless Bags");
    // Its provider serves it in US too: only the platform's rule is missing there.
    await e2e.operator.connectProvider(merchant.uuid, ["US"]);
    const client = await adminOf(merchant);
    // Merchant-wide it is Ready: the overview names no country.
    expect((await onboarding(client)).codes).toEqual({ "usdt-bep20": [], "usdc-erc20": [] });
    await expectCreationRefused(client, merchant, { "usdt-bep20": ["payin_not_allowed"], "usdc-erc20": ["payin_not_allowed"] }, "US");
    const refused = await postPairs(client, "/merchant/checkouts/new", Object.entries(checkoutForm(csrfTokenIn((await client.get("/merchant/checkouts/new")).text), { jurisdiction: "US" })));
    expect(textOf(refused.text, "readiness-usdt-bep20")).toContain("the platform does not allow them for sales in the country of the checkout");
    // The same checkout sold in DE is created.
    const form = await client.get("/merchant/checkouts/new");
    expect((await client.post("/merchant/checkouts/new", checkoutForm(csrfTokenIn(form.text)))).status).toBe(201);
    expect(await checkoutCount(e2e, merchant.uuid)).toBe(1);
  });

  it("refuses a checkout for a country where no provider is bound for the merchant, naming provider_not_ready; a binding elsewhere does not count", async () => {
    const merchant = await readyMerchant(e2e, "Frontier Frames", { provider: false });
    await e2e.operator.connectProvider(merchant.uuid, ["DE"]);
    const client = await adminOf(merchant);
    await expectCreationRefused(client, merchant, { "usdt-bep20": ["provider_not_ready"], "usdc-erc20": ["provider_not_ready"] }, "FR");
    const form = await client.get("/merchant/checkouts/new");
    expect((await client.post("/merchant/checkouts/new", checkoutForm(csrfTokenIn(form.text), { jurisdiction: "DE" }))).status).toBe(201);
    expect(await checkoutCount(e2e, merchant.uuid)).toBe(1);
  });

  it("names every failing reason at once, in the contract's order, with plain words and what to ask for", async () => {
    const merchant = await readyMerchant(e2e, "Nothing Yet Novelties", { activate: false, authorise: false, provider: false, xpub: null });
    const client = await adminOf(merchant);
    const expected = ["merchant_inactive", "operating_profile_missing", "payin_not_allowed", "wallet_not_ready", "provider_not_ready"];
    const { html, codes } = await onboarding(client);
    expect(codes).toEqual({ "usdt-bep20": expected, "usdc-erc20": expected });
    // The codes keep the contract's order.
    expect(expected).toEqual(READINESS_CODES.filter((code) => expected.includes(code)));
    const text = textOf(html, "readiness-usdc-erc20");
    for (const words of ["not active", "no operating profile", "does not allow", "No receiving wallet", "cannot be watched"]) expect(text).toContain(words);
    expect(text.match(/Ask the platform/g)).toHaveLength(5);
    expect(textOf(html, "readiness-overall")).toContain("Nothing is ready yet");
    const dashboard = await client.get("/merchant");
    expect(textOf(dashboard.text, "glance-usdt-bep20")).toContain("Not ready (5 reasons)");
    await expectCreationRefused(client, merchant, { "usdt-bep20": expected, "usdc-erc20": expected });
  });
});
