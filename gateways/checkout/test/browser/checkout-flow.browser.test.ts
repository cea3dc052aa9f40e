/**
 * The hosted checkout in a real browser (Chromium), on the whole platform and
 * two local chains: a merchant signs in with a second factor, sees why it
 * cannot take payments yet, becomes ready and creates a payment link; payers
 * open links, choose a method, start, read the QR codes as a wallet would,
 * pay with real token transfers and watch the page turn to paid, with
 * JavaScript on and off. Every page visited is scanned by axe-core and
 * photographed at 320, 390 and 1280 px under tmp/screenshots/.
 */
import { mineBlocks, transferToken, LOCAL_CHAIN_IDS } from "@payin/local-chains";
import { awaitFreshTotpStep, totpCodeAt, totpStepAt } from "@payin/testing";
import pg from "pg";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { getAddress, parseUnits, type Address } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { merchantPerson, readyMerchant, useCheckoutPlatform, type MerchantPerson } from "../support.js";
import { decodeQr, expectNoSeriousAxeViolations, inspectPage, launchBrowser, newContext, onSettledPage, submitForm, textOf, waitForText, watchPageProblems } from "./browser.js";

// In-page code (page.evaluate) runs in the browser; this project compiles without the DOM library.
declare const document: any;
declare const navigator: any;
declare function getComputedStyle(element: any): any;

const e2e = useCheckoutPlatform({
  chains: true,
  // Every page of this file comes from one address: the per-address limit is
  // not what these tests are about (per token stays as configured).
  env: { RATE_LIMIT_PUBLIC_PER_IP: "1000" },
});

const TEST_TIMEOUT_MS = 180_000;

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
}, 30_000);

/** A fresh browser profile (closed with the browser after the file). */
function openContext(options: { javaScript?: boolean } = {}): Promise<BrowserContext> {
  return newContext(browser, e2e.checkoutUrl, options);
}

/** A page that fails the test on a script error or a CSP refusal in it. */
async function openPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  return { page, problems: watchPageProblems(page) };
}

/** Waits until the current TOTP step is later than `step`, with a few seconds of it left: a code is taken once per step. */
async function awaitTotpStepAfter(step: number): Promise<void> {
  while (totpStepAt() <= step) await new Promise((resolve) => setTimeout(resolve, 30_000 - (Date.now() % 30_000) + 100));
  await awaitFreshTotpStep();
}

/** Signs in at /merchant/login with email, password and (when enrolled) the TOTP code; ends on the page after sign-in. */
async function signIn(page: Page, person: MerchantPerson, options: { inspect?: boolean; totpStepUsed?: number } = {}): Promise<void> {
  await page.goto("/merchant/login");
  if (options.inspect) await inspectPage(page, "merchant-login");
  await page.locator("#email").fill(person.email);
  await page.locator("#password").fill(person.password);
  await submitForm(page, () => page.getByRole("button", { name: "Sign in" }).click());
  if (!person.totpSecret) return;
  await page.locator("#code").waitFor();
  expect(await textOf(page.locator("h1"))).toBe("Enter your sign-in code");
  if (options.inspect) await inspectPage(page, "merchant-login-code");
  await awaitTotpStepAfter(options.totpStepUsed ?? -1);
  await page.locator("#code").fill(totpCodeAt(person.totpSecret));
  await submitForm(page, () => page.getByRole("button", { name: "Continue" }).click());
}

/** The lower-case reason codes a pair's readiness section shows. */
async function reasonCodesShown(page: Page, pair: string): Promise<string[]> {
  return page.locator(`#readiness-${pair} .reason-code`).allInnerTexts();
}

/** A payment link made as the merchant area makes one (payins over RPC); its token. */
async function checkoutLink(merchantUuid: string, fields: { amount: string; pairs: [string, string][]; reference?: string; description?: string }): Promise<{ token: string; uuid: string }> {
  const created = await e2e.payins.createCheckoutSession({
    merchantUuid,
    amount: fields.amount,
    pairs: fields.pairs.map(([asset, rail]) => ({ asset, rail })),
    jurisdiction: "DE",
    reference: fields.reference,
    description: fields.description,
  });
  return { token: created.token, uuid: created.session!.checkoutUuid };
}

interface StatusPayload {
  presentation_state: string;
  paid: boolean;
  address: string | null;
  pay_in_status: string | null;
  expired_for_payment: boolean;
}

async function statusOf(token: string): Promise<StatusPayload> {
  const res = await fetch(new URL(`/c/${token}/status`, e2e.checkoutUrl));
  expect(res.status).toBe(200);
  return (await res.json()) as StatusPayload;
}

/** Polls the status payload until `done` holds of it. */
async function statusUntil(token: string, done: (status: StatusPayload) => boolean, what: string, timeoutMs = 60_000): Promise<StatusPayload> {
  const started = Date.now();
  for (;;) {
    const status = await statusOf(token);
    if (done(status)) return status;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; last status: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Whether the focused element shows a visible focus indicator (an outline or a ring), and what it is. */
async function focusIndicator(page: Page): Promise<{ tag: string; text: string; visible: boolean; style: string }> {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return { tag: "none", text: "", visible: false, style: "" };
    const style = getComputedStyle(element);
    const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
    const ring = style.boxShadow !== "none" && style.boxShadow !== "";
    return {
      tag: element.tagName.toLowerCase(),
      text: (element.textContent ?? "").trim().slice(0, 60),
      visible: element.matches(":focus-visible") && (outline || ring),
      style: `outline ${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}; box-shadow ${style.boxShadow}`,
    };
  });
}

/** Presses Tab until `matches` holds of the focused element (at most `limit` presses); fails if it never does. */
async function tabTo(page: Page, matches: string, limit = 40): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((selector) => document.activeElement?.matches(selector) ?? false, matches)) return;
  }
  throw new Error(`${matches} is not reachable with the Tab key`);
}

/** An amount in the token's integer base units, as an EIP-681 `uint256` holds it. */
const baseUnits = (amount: string, decimals: number) => parseUnits(amount, decimals).toString();

const BOTH_PAIRS: [string, string][] = [
  ["usdt", "bep20"],
  ["usdc", "erc20"],
];

/** The status payload the page was drawn from (the #payer element's data-status), read again until `done` holds of it. */
async function pageShows(page: Page, done: (shown: StatusPayload) => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  let last = "";
  for (;;) {
    last = (await page.locator("#payer").getAttribute("data-status").catch(() => null)) ?? "";
    if (last && done(JSON.parse(last) as StatusPayload)) return;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; the page shows ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The payment view as a payer must read it: exact amount, token and network in words, chain id, contract, whole address in groups of four. */
async function expectPaymentTerms(page: Page, terms: { amount: string; address: string; label: string; chainId: number; contract: string }): Promise<void> {
  expect(await textOf(page.locator("#amount"))).toBe(terms.amount);
  expect(await textOf(page.locator("#token-network"))).toBe(terms.label);
  expect(await textOf(page.locator("#chain-id"))).toBe(String(terms.chainId));
  expect(await textOf(page.locator("#token-contract"))).toBe(terms.contract);
  const grouped = await textOf(page.locator("#address"));
  expect(grouped).toMatch(/^0x[0-9a-fA-F]{4}( [0-9a-fA-F]{4}){9}$/);
  expect(grouped.replace(/ /g, "")).toBe(terms.address);
  expect(await textOf(page.locator(".network-warning"))).toContain("Any other token or network may be lost");
  expect(await page.locator("#deadline").getAttribute("datetime")).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  expect(await textOf(page.locator("#countdown"))).toMatch(/^(\d+:)?\d\d:\d\d$/);
}

/** The receipt after payment: amount, transaction hash, merchant, reference. */
async function expectReceipt(page: Page, paid: { amount: string; txHash: string; merchantName: string; reference: string }): Promise<void> {
  const receipt = page.locator("#receipt");
  await receipt.waitFor({ state: "visible" });
  expect((await page.locator("#receipt .tx-hash").allInnerTexts()).map((hash) => hash.trim().toLowerCase())).toEqual([paid.txHash.toLowerCase()]);
  const text = await textOf(receipt);
  expect(text).toContain(`${paid.amount} `);
  expect(text).toContain(paid.merchantName);
  expect(text).toContain(paid.reference);
}

describe("the merchant area in a browser", () => {
  it(
    "signs in with a second factor, shows what is missing, turns ready, creates a link shown once, and disables an unused one",
    async () => {
      const name = "Browser Test Shop";
      // Not authorised yet: no payin policy, no operating profile.
      const merchant = await readyMerchant(e2e, name, { authorise: false });
      const person = await merchantPerson(e2e, [merchant.uuid], { mfa: true });
      const totpStepUsed = totpStepAt();
      const context = await openContext();
      const { page, problems } = await openPage(context);

      await signIn(page, person, { inspect: true, totpStepUsed });
      expect(new URL(page.url()).pathname).toBe("/merchant");
      expect(await textOf(page.locator("#merchant-name"))).toBe(name);
      expect(await textOf(page.locator("#glance-usdt-bep20"))).toContain("Not ready");
      await inspectPage(page, "merchant-dashboard-not-ready");

      // Onboarding lists every failing reason, by the codes readiness decides.
      const { pairs: before } = await e2e.operator.allocation.getReadiness({ merchantUuid: merchant.uuid });
      expect(before.length).toBe(2);
      await page.getByRole("link", { name: "Readiness" }).click();
      await page.waitForURL("**/merchant/onboarding");
      for (const pair of before) {
        expect(pair.ready).toBe(false);
        expect(await reasonCodesShown(page, `${pair.asset}-${pair.rail}`)).toEqual(pair.reasons);
      }
      expect(before[0]!.reasons).toEqual(expect.arrayContaining(["operating_profile_missing", "payin_not_allowed"]));
      expect(await textOf(page.locator("#readiness-overall"))).toContain("Nothing is ready yet");
      await inspectPage(page, "merchant-onboarding-not-ready");

      // A creation while not ready is refused with the codes, and creates nothing.
      await page.goto("/merchant/checkouts/new");
      await page.locator("#description").fill("Refused while not ready");
      await page.locator("#amount").fill("3");
      await page.locator("#pair-usdt-bep20").check();
      await page.locator("#jurisdiction").fill("DE");
      await submitForm(page, () => page.getByRole("button", { name: "Create checkout" }).click(), 409);
      await page.locator("#refusal").waitFor();
      expect(await page.locator("#refusal .reason-code").allInnerTexts()).toEqual(before.find((p) => p.asset === "usdt")!.reasons);
      expect((await e2e.payins.listCheckoutSessions({ merchantUuid: merchant.uuid, limit: 10, offset: 0 })).total).toBe(0n);
      await inspectPage(page, "merchant-new-checkout-refused");

      // The platform makes it ready; the page says so once reloaded.
      await e2e.operator.allowJurisdictions();
      await e2e.operator.authorise(merchant.uuid);
      await page.goto("/merchant/onboarding");
      expect(await textOf(page.locator("#readiness-overall"))).toContain("Everything is ready");
      for (const pair of ["usdt-bep20", "usdc-erc20"]) {
        expect(await textOf(page.locator(`#readiness-${pair}`))).toContain("Ready.");
        expect(await reasonCodesShown(page, pair)).toEqual([]);
      }
      await inspectPage(page, "merchant-onboarding-ready");

      await page.goto("/merchant");
      expect(await textOf(page.locator("#glance-usdt-bep20"))).toContain("Ready");
      expect(await textOf(page.locator("#glance-usdt-bep20"))).not.toContain("Not ready");
      await inspectPage(page, "merchant-dashboard-ready");

      // A new link, shown once.
      await page.getByRole("link", { name: "New checkout" }).first().click();
      await page.waitForURL("**/merchant/checkouts/new");
      await inspectPage(page, "merchant-new-checkout");
      await page.locator("#description").fill("Two concert tickets");
      await page.locator("#amount").fill("24.5");
      await page.locator("#pair-usdt-bep20").check();
      await page.locator("#pair-usdc-erc20").check();
      await page.locator("#jurisdiction").fill("DE");
      await page.locator("#reference").fill("order-4711");
      await submitForm(page, () => page.getByRole("button", { name: "Create checkout" }).click(), 201);
      await page.locator("#checkout-link").waitFor();
      const link = await page.locator("#checkout-link").inputValue();
      expect(link).toMatch(new RegExp(`^${e2e.checkoutUrl.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/c/[A-Za-z0-9_-]{43}$`));
      const token = link.slice(link.lastIndexOf("/") + 1);
      expect(await textOf(page.locator("#shown-once"))).toContain("shown only once");
      await inspectPage(page, "merchant-link-shown");

      // The history lists it, open, and never shows the link again.
      await page.goto("/merchant/checkouts");
      const sessions = await e2e.payins.listCheckoutSessions({ merchantUuid: merchant.uuid, limit: 10, offset: 0 });
      expect(sessions.total).toBe(1n);
      const created = sessions.sessions[0]!;
      const row = page.locator(`#checkout-${created.checkoutUuid}`);
      expect(await textOf(row)).toContain("order-4711");
      expect(await textOf(row)).toContain("24.5");
      expect(await row.locator(".checkout-state").getAttribute("data-state")).toBe("open");
      expect(await page.content()).not.toContain(token);
      await inspectPage(page, "merchant-checkouts");
      await page.locator(`#checkout-${created.checkoutUuid} h2 a`).click();
      await page.waitForURL(`**/merchant/checkouts/${created.checkoutUuid}`);
      expect(await page.content()).not.toContain(token);
      await inspectPage(page, "merchant-checkout-detail");

      await page.goto("/merchant/profile");
      expect(await textOf(page.locator("#person-profile"))).toContain(person.email);
      await inspectPage(page, "merchant-profile");

      // The link works for a payer: it offers both methods.
      const payer = await openPage(await openContext());
      await payer.page.goto(`/c/${token}`);
      expect(await textOf(payer.page.locator("#amount"))).toBe("24.5");
      expect(await payer.page.locator('#start-form input[name="pair"]').count()).toBe(2);

      // Disabled before anyone started it: its link then starts nothing.
      await page.goto(`/merchant/checkouts/${created.checkoutUuid}`);
      await submitForm(page, () => page.getByRole("button", { name: "Disable checkout" }).click());
      await page.waitForURL((url) => url.pathname === "/merchant/checkouts" && url.searchParams.get("notice") === "disabled");
      expect(await textOf(page.locator("#notice"))).toContain("disabled");
      expect(await page.locator(`#checkout-${created.checkoutUuid} .checkout-state`).getAttribute("data-state")).toBe("disabled");
      await expectNoSeriousAxeViolations(page, "merchant-checkouts-disabled-notice");
      await payer.page.reload();
      expect(await payer.page.locator("#start-form").count()).toBe(0);
      expect((await statusOf(token)).presentation_state).toBe("unavailable");
      await inspectPage(payer.page, "payer-unavailable");

      expect(problems).toEqual([]);
      expect(payer.problems).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "lets a person in several merchants choose one",
    async () => {
      const first = await readyMerchant(e2e, "First Branch");
      const second = await readyMerchant(e2e, "Second Branch");
      const person = await merchantPerson(e2e, [first.uuid, second.uuid]);
      const { page, problems } = await openPage(await openContext());
      await signIn(page, person);
      await page.waitForURL("**/merchant/choose");
      await inspectPage(page, "merchant-choose");
      await page.getByLabel("Second Branch").check();
      await submitForm(page, () => page.getByRole("button", { name: "Continue" }).click());
      expect(new URL(page.url()).pathname).toBe("/merchant");
      expect(await textOf(page.locator("#merchant-name"))).toBe("Second Branch");
      expect(problems).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});

describe("the payer's page in a browser", () => {
  it(
    "with JavaScript: chooses a method, starts by keyboard, reads both QR codes, copies, and turns to paid by itself after a real transfer",
    async () => {
      const local = e2e.chains!.rails.bep20;
      const merchant = await readyMerchant(e2e, "Payer Test Shop");
      const amount = "12.5";
      const { token } = await checkoutLink(merchant.uuid, { amount, pairs: BOTH_PAIRS, reference: "inv-2001", description: "A year of cloud storage" });
      const { page, problems } = await openPage(await openContext());
      await page.goto(`/c/${token}`);
      expect((await statusOf(token)).presentation_state).toBe("select_method");
      expect(await textOf(page.locator("#amount"))).toBe(amount);
      expect(await textOf(page.locator("#payment-status"))).toBe("Not started. Choose how you want to pay.");
      await inspectPage(page, "payer-choose-method");

      // Choose USDT on BNB Smart Chain, then reach the start button with the keyboard and press it.
      const usdt = page.getByLabel("USDT on BNB Smart Chain (BEP20)");
      await usdt.check();
      await tabTo(page, '#start-form button[type="submit"]');
      const startFocus = await focusIndicator(page);
      expect(startFocus.visible, `the start button shows no visible focus (${startFocus.style})`).toBe(true);
      // Nothing changed, so the page must not have reloaded itself and lost the choice.
      expect(await usdt.isChecked(), "the method chosen is no longer checked: the page reloaded by itself").toBe(true);
      await submitForm(page, () => page.keyboard.press("Enter"));
      await page.locator("#address").waitFor();

      // The status script reloads the page when the intent is armed: wait for the page that shows it.
      const status = await statusUntil(token, (s) => s.pay_in_status === "awaiting_payment", "the started intent to await payment");
      await pageShows(page, (shown) => shown.pay_in_status === "awaiting_payment", "the page to show the armed intent");
      expect(await textOf(page.locator("#payment-status"))).toBe("Waiting for your payment.");

      // The payment, exactly: amount, token and network in words, chain id, contract, the whole address in fours.
      const address = getAddress(status.address!);
      expect(status.address).toBe(address);
      const contract = getAddress(local.tokens.usdt.address);
      await expectPaymentTerms(page, { amount, address, label: "USDT on BNB Smart Chain (BEP20)", chainId: LOCAL_CHAIN_IDS.bep20, contract });
      await inspectPage(page, "payer-awaiting-payment");

      // The copy buttons: reached with the keyboard from the top, visibly focused, copying the bare text, announced.
      await tabTo(page, `[data-copy="${amount}"]`);
      const copyFocus = await focusIndicator(page);
      expect(copyFocus.visible, `the amount's copy button shows no visible focus (${copyFocus.style})`).toBe(true);
      await page.keyboard.press("Enter");
      await waitForText(page.locator("#copy-status"), (text) => text === "Amount copied", "the amount's copy to be announced", 5_000);
      expect(await page.locator("#copy-status").getAttribute("aria-live")).toBe("polite");
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(amount);
      await page.locator(`[data-copy="${address}"]`).click();
      await waitForText(page.locator("#copy-status"), (text) => text === "Address copied", "the address's copy to be announced", 5_000);
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(address);

      // The QR codes, read from pixels as a wallet reads them: the EIP-681 transfer, then the address alone.
      expect(await page.locator("#qr-eip681").isVisible()).toBe(true);
      expect(await page.locator("#qr-address").isVisible()).toBe(false);
      expect(await decodeQr(page.locator("#qr-eip681 svg"))).toBe(`ethereum:${contract}@${LOCAL_CHAIN_IDS.bep20}/transfer?address=${address}&uint256=${baseUnits(amount, 18)}`);
      await page.locator("#qr-switch").click();
      await page.locator("#qr-address").waitFor({ state: "visible" });
      expect(await page.locator("#qr-eip681").isVisible()).toBe(false);
      expect(await textOf(page.locator("#qr-address"))).toContain("holds the address only");
      expect(await decodeQr(page.locator("#qr-address svg"))).toBe(address);

      // A real transfer; the open page turns to paid by itself (the test never reloads it).
      const txHash = await transferToken(local, e2e.chains!.payer, "usdt", address as Address, amount);
      await mineBlocks(local, 3);
      await waitForText(page.locator("#payment-status"), (text) => text === "Paid. Thank you!", "the open page to show the payment as paid", 60_000);
      expect((await statusOf(token)).paid).toBe(true);
      await expectReceipt(page, { amount, txHash, merchantName: "Payer Test Shop", reference: "inv-2001" });
      await inspectPage(page, "payer-paid-receipt");
      expect(problems).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "with JavaScript: after part of the payment arrives, the open page asks for the rest by itself (amount, copy, QR code)",
    async () => {
      const local = e2e.chains!.rails.bep20;
      const merchant = await readyMerchant(e2e, "Part Payment Shop");
      const { token } = await checkoutLink(merchant.uuid, { amount: "9.99", pairs: [["usdt", "bep20"]], reference: "inv-4004" });
      const { page, problems } = await openPage(await openContext());
      await page.goto(`/c/${token}`);
      await submitForm(page, () => page.getByRole("button", { name: "Start payment" }).click());
      await page.locator("#address").waitFor();
      const status = await statusUntil(token, (s) => s.pay_in_status === "awaiting_payment", "the started intent to await payment");
      await pageShows(page, (shown) => shown.pay_in_status === "awaiting_payment", "the page to show the armed intent");
      const address = getAddress(status.address!);
      const contract = getAddress(local.tokens.usdt.address);
      expect(await textOf(page.locator("#send-title"))).toBe("Send exactly 9.99 USDT");

      await transferToken(local, e2e.chains!.payer, "usdt", address as Address, "5");
      await mineBlocks(local, 3);
      // The test never reloads the page: the script sees what is asked has changed and draws it anew.
      await waitForText(page.locator("#send-title"), (text) => text === "Send the remaining 4.99 USDT", "the open page to ask for the rest", 60_000);
      await onSettledPage(page, async () => {
        expect(await textOf(page.locator("#received"))).toBe("Received 5 USDT of 9.99 USDT");
        // The reloaded page shows its copy buttons once its script has run.
        await page.locator('[data-copy="4.99"]').waitFor({ state: "visible", timeout: 15_000 });
        expect(await page.locator('[data-copy="9.99"]').count()).toBe(0);
      });
      expect(await decodeQr(page.locator("#qr-eip681 svg"))).toBe(`ethereum:${contract}@${LOCAL_CHAIN_IDS.bep20}/transfer?address=${address}&uint256=${baseUnits("4.99", 18)}`);
      await inspectPage(page, "payer-partial-payment");
      expect((await statusOf(token)).paid).toBe(false);
      expect(problems).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "without JavaScript: starts through the form, switches QR by link, and shows paid and the receipt on reload",
    async () => {
      const local = e2e.chains!.rails.erc20;
      const merchant = await readyMerchant(e2e, "No Script Shop");
      const amount = "7.25";
      const { token } = await checkoutLink(merchant.uuid, { amount, pairs: BOTH_PAIRS, reference: "inv-3003" });
      const { page, problems } = await openPage(await openContext({ javaScript: false }));
      await page.goto(`/c/${token}`);
      await inspectPage(page, "payer-choose-method-no-js");
      await page.getByLabel("USDC on Ethereum (ERC20)").check();
      await submitForm(page, () => page.locator('#start-form [type="submit"]').click());
      await page.locator("#address").waitFor();
      const status = await statusUntil(token, (s) => s.pay_in_status === "awaiting_payment", "the started intent to await payment");
      const address = getAddress(status.address!);
      const contract = getAddress(local.tokens.usdc.address);
      await expectPaymentTerms(page, { amount, address, label: "USDC on Ethereum (ERC20)", chainId: LOCAL_CHAIN_IDS.erc20, contract });
      // Without JavaScript: a refresh link, a meta refresh, and no copy buttons (they need the script).
      expect(await page.locator("#refresh-link").isVisible()).toBe(true);
      expect(await page.locator('noscript meta[http-equiv="refresh"]').count()).toBe(1);
      expect(await page.locator("[data-copy]").first().isVisible()).toBe(false);
      expect(await decodeQr(page.locator("#qr-eip681 svg"))).toBe(`ethereum:${contract}@${LOCAL_CHAIN_IDS.erc20}/transfer?address=${address}&uint256=${baseUnits(amount, 6)}`);
      await inspectPage(page, "payer-awaiting-payment-no-js");

      // The switch is a link to the same page showing the other code.
      expect(await page.locator("#qr-switch").getAttribute("href")).toBe(`/c/${token}?qr=address`);
      await page.locator("#qr-switch").click();
      await page.waitForURL((url) => url.searchParams.get("qr") === "address");
      expect(await page.locator("#qr-eip681").isVisible()).toBe(false);
      expect(await decodeQr(page.locator("#qr-address svg"))).toBe(address);
      await inspectPage(page, "payer-awaiting-payment-address-qr-no-js");

      const txHash = await transferToken(local, e2e.chains!.payer, "usdc", address as Address, amount);
      await mineBlocks(local, 3);
      // The payer follows the refresh link now and then, as the page asks.
      const started = Date.now();
      for (;;) {
        const shown = await onSettledPage(page, async () => {
          await page.locator("#refresh-link").click();
          await page.waitForLoadState("load");
          return textOf(page.locator("#payment-status"));
        });
        if (shown === "Paid. Thank you!") break;
        if (Date.now() - started > 60_000) throw new Error(`the page never showed the payment as paid; last status: ${shown}`);
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
      await expectReceipt(page, { amount, txHash, merchantName: "No Script Shop", reference: "inv-3003" });
      // Paid is final: nothing left to refresh.
      expect(await page.locator("#refresh-link").count()).toBe(0);
      expect(await page.locator('noscript meta[http-equiv="refresh"]').count()).toBe(0);
      await inspectPage(page, "payer-paid-receipt-no-js");
      expect(problems).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "says do not send once the deadline has passed, by itself, and leaves the intent as it was",
    async () => {
      const merchant = await readyMerchant(e2e, "Deadline Shop");
      const { token, uuid } = await checkoutLink(merchant.uuid, { amount: "5", pairs: [["usdt", "bep20"]] });
      // A payment window of a few seconds (the service's floor is a minute), so the deadline passes during the test.
      const db = new pg.Client({ connectionString: e2e.platform.databaseUrl });
      await db.connect();
      try {
        const updated = await db.query(`update payins.checkout_sessions set payment_window_s = 15 where uuid = $1`, [uuid]);
        expect(updated.rowCount).toBe(1);
      } finally {
        await db.end();
      }
      const { page, problems } = await openPage(await openContext());
      await page.goto(`/c/${token}`);
      expect((await statusOf(token)).presentation_state).toBe("ready_to_start");
      expect(await textOf(page.locator("#payment-status"))).toBe("Not started.");
      await inspectPage(page, "payer-ready-to-start");
      await submitForm(page, () => page.getByRole("button", { name: "Start payment" }).click());
      await page.locator("#address").waitFor();
      await waitForText(page.locator("#payment-status"), (text) => text === "The time to pay has passed. Do not send anything now.", "the open page to say the time has passed", 60_000);
      expect(await textOf(page.locator(".do-not-send"))).toContain("Do not send anything now");
      // Nothing to pay to any more: no address to copy, no QR code to scan.
      expect(await page.locator("#qr-eip681").count()).toBe(0);
      expect(await page.locator("#address").count()).toBe(0);
      const status = await statusOf(token);
      expect(status).toMatchObject({ presentation_state: "expired_for_payment", expired_for_payment: true, paid: false });
      // The deadline never changes the intent: it is (or, once the observer arms it, becomes) awaiting payment, never anything else.
      const later = await statusUntil(token, (s) => s.pay_in_status === "awaiting_payment", "the expired checkout's intent to await payment");
      expect(later).toMatchObject({ presentation_state: "expired_for_payment", paid: false });
      await inspectPage(page, "payer-expired");
      expect(problems).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
