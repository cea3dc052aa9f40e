/**
 * The merchant area's webhook pages in a real browser (Chromium) on the whole
 * platform: a merchant admin adds an endpoint, reads and copies its signing
 * secret (the copy button with JavaScript, the selectable field without),
 * gets a form refusal shown on the form, sends a test event to a receiver on
 * loopback and follows it from the log to the event's page. Every page is
 * scanned by axe-core and photographed at 320, 390 and 1280 px.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { merchantPerson, readyMerchant, useCheckoutPlatform, type MerchantPerson } from "../support.js";
import { inspectPage, launchBrowser, newContext, submitForm, textOf, waitForText, watchPageProblems } from "./browser.js";

// In-page code (page.evaluate) runs in the browser; this project compiles without the DOM library.
declare const navigator: any;

const e2e = useCheckoutPlatform();

let browser: Browser;
let receiver: http.Server;
let receiverUrl = "";
const received: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  receiver = http.createServer((req, res) => {
    received.push(String(req.headers["webhook-id"] ?? ""));
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
}, 30_000);

async function openPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  return { page, problems: watchPageProblems(page) };
}

/** Signs in at /merchant/login (a merchant admin needs no second factor). */
async function signIn(page: Page, person: MerchantPerson): Promise<void> {
  await page.goto("/merchant/login");
  await page.locator("#email").fill(person.email);
  await page.locator("#password").fill(person.password);
  await submitForm(page, () => page.getByRole("button", { name: "Sign in" }).click());
}

describe("the webhook pages in a browser", () => {
  it(
    "adds an endpoint, shows and copies its secret once, shows a refusal on the form, and follows a test event from the log to its page",
    async () => {
      const merchant = await readyMerchant(e2e, "Browser Hooks", { xpub: null });
      const person = await merchantPerson(e2e, [merchant.uuid]);
      const context = await newContext(browser, e2e.checkoutUrl);
      const { page, problems } = await openPage(context);
      await signIn(page, person);

      // The navigation leads to the webhooks.
      await page.getByRole("navigation", { name: "Merchant area" }).getByRole("link", { name: "Webhooks" }).click();
      await page.waitForURL("**/merchant/webhooks");
      expect(await textOf(page.locator("#endpoints-summary"))).toBe("No webhook endpoints yet.");
      await inspectPage(page, "merchant-webhooks-empty");

      await page.getByRole("link", { name: "Add endpoint" }).click();
      await page.waitForURL("**/merchant/webhooks/new");
      await inspectPage(page, "merchant-webhook-new");

      // A private address: refused on the form, with what was typed kept.
      await page.getByLabel("Endpoint URL").fill("http://10.1.2.3/hooks");
      await page.getByLabel("Only the events ticked below").check();
      await page.getByLabel("pay_in_intent.paid").check();
      await submitForm(page, () => page.getByRole("button", { name: "Add endpoint" }).click(), 400);
      expect(await textOf(page.locator("#url-error"))).toContain("not a public address");
      expect(await page.getByLabel("Endpoint URL").inputValue()).toBe("http://10.1.2.3/hooks");
      expect(await page.locator("#url").getAttribute("aria-invalid")).toBe("true");
      expect(await page.getByLabel("pay_in_intent.paid").isChecked()).toBe(true);
      await inspectPage(page, "merchant-webhook-new-refused");

      await page.getByLabel("Endpoint URL").fill(`${receiverUrl}/hooks/browser`);
      await page.getByLabel("Description (optional)").fill("Browser receiver");
      await submitForm(page, () => page.getByRole("button", { name: "Add endpoint" }).click(), 201);
      expect(await textOf(page.locator("h1"))).toBe("Endpoint added");
      const secret = await page.locator("#signing-secret").inputValue();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(await textOf(page.locator("#shown-once"))).toContain("This secret is shown only once");
      // With JavaScript, the copy button shows, copies the secret and says so.
      const copy = page.getByRole("button", { name: "Copy secret" });
      await copy.waitFor({ state: "visible" });
      await copy.click();
      await waitForText(page.locator("#copy-status"), (text) => text === "Secret copied", "the copy to be announced", 5_000);
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      await inspectPage(page, "merchant-webhook-secret");

      // The endpoint's page never shows it again; a test event goes out and shows in the log.
      await page.getByRole("link", { name: "View this endpoint" }).click();
      await page.waitForURL(/\/merchant\/webhooks\/[0-9a-f-]{36}$/);
      expect(await page.content()).not.toContain(secret);
      await inspectPage(page, "merchant-webhook-endpoint");
      await submitForm(page, () => page.getByRole("button", { name: "Send test event" }).click());
      expect(await textOf(page.locator("#notice"))).toContain("A test event (webhook.test) was sent");
      const eventUuid = new URL(page.url()).searchParams.get("event");
      expect(eventUuid).toMatch(/^[0-9a-f-]{36}$/);
      await waitForText(page.locator("#deliveries"), (text) => text.includes("webhook.test"), "the test event in the log");
      await inspectPage(page, "merchant-webhook-endpoint-log");

      await page.locator(`#deliveries a[href="/merchant/webhooks/events/${eventUuid}"]`).first().click();
      await page.waitForURL(`**/merchant/webhooks/events/${eventUuid}`);
      expect(await textOf(page.locator("#event-id"))).toBe(eventUuid);
      await inspectPage(page, "merchant-webhook-event");

      await page.goBack();
      await page.getByRole("link", { name: "Edit endpoint" }).click();
      await page.waitForURL(/\/edit$/);
      await inspectPage(page, "merchant-webhook-edit");
      await page.goBack();
      await page.getByRole("link", { name: "Delete endpoint…" }).click();
      await page.waitForURL(/\/delete$/);
      await inspectPage(page, "merchant-webhook-delete");
      expect(problems).toEqual([]);

      // Without JavaScript, the secret of a rotation is in its field to select, and no button that would do nothing shows.
      const scriptless = await newContext(browser, e2e.checkoutUrl, { javaScript: false });
      const { page: plain } = await openPage(scriptless);
      await signIn(plain, person);
      const endpointPath = new URL(page.url()).pathname.replace(/\/delete$/, "");
      await plain.goto(endpointPath);
      await submitForm(plain, () => plain.getByRole("button", { name: "Rotate secret" }).click(), 200);
      const rotated = await plain.locator("#signing-secret").inputValue();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      expect(await plain.locator("[data-copy]").isHidden()).toBe(true);
      await inspectPage(plain, "merchant-webhook-rotated-no-js");
    },
    240_000,
  );
});
