/**
 * Helpers of the merchant area's tests: signing a person in through the pages
 * (with a TOTP code no earlier sign-in used), reading what a page shows, and
 * counting what exists.
 */
import { awaitFreshTotpStep, totpCodeAt, totpStepAt } from "@payin/testing";
import { expect } from "vitest";
import { csrfTokenIn, elementById, PageClient, textOfHtml, type CheckoutE2e, type MerchantPerson, type PageResponse } from "./support.js";

export const SESSION_COOKIE = "__Host-payin_checkout";
export const MERCHANT_COOKIE = "__Host-payin_checkout_merchant";
export const LOGIN_COOKIE = "__Host-payin_checkout_login";

export const READINESS_CODES = [
  "merchant_inactive",
  "operating_profile_missing",
  "payin_not_allowed",
  "asset_not_configured",
  "wallet_not_ready",
  "allocator_not_ready",
  "provider_not_ready",
] as const;

/**
 * TOTP codes for sign-ins: identity accepts the steps next to its current one
 * and each step once, so every code handed out is of a step later than any
 * used before for that secret (waiting for the next step when none is left).
 */
export class TotpCodes {
  private readonly lastUsed = new Map<string, number>();

  /** Records that steps up to `step` (now, by default) may have been used for `secret`. */
  used(secret: string, step = totpStepAt()): void {
    this.lastUsed.set(secret, Math.max(this.lastUsed.get(secret) ?? -1, step));
  }

  /** A code no earlier sign-in used, valid for at least 8 more seconds; its step. */
  async next(secret: string): Promise<{ code: string; step: number }> {
    for (;;) {
      const now = await awaitFreshTotpStep();
      const step = Math.max(now - 1, (this.lastUsed.get(secret) ?? -1) + 1);
      if (step <= now + 1) {
        this.used(secret, step);
        return { code: totpCodeAt(secret, step), step };
      }
      // Every step identity would accept now was used: wait for the next one.
      await awaitFreshTotpStep(60_000);
    }
  }
}

export const totp = new TotpCodes();

/** A person made by merchantPerson: their enrolment used the TOTP step of now (at the latest). */
export function enrolled(person: MerchantPerson): MerchantPerson {
  if (person.totpSecret) totp.used(person.totpSecret);
  return person;
}

/** Posts the sign-in form of a fresh login page. */
export async function postLogin(client: PageClient, email: string, password: string): Promise<PageResponse> {
  const page = await client.get("/merchant/login");
  expect(page.status).toBe(200);
  return client.post("/merchant/login", { csrf_token: csrfTokenIn(page.text), email, password });
}

/** The hidden MFA challenge token of the code form. */
export function challengeTokenIn(html: string): string {
  const match = /name="mfa_challenge_token" value="([^"]+)"/.exec(html);
  if (!match) throw new Error("the page has no MFA challenge");
  return match[1]!;
}

/** Posts a code to the code form `page`. */
export function postCode(client: PageClient, page: PageResponse, code: string): Promise<PageResponse> {
  return client.post("/merchant/login/mfa", { csrf_token: csrfTokenIn(page.text), mfa_challenge_token: challengeTokenIn(page.text), code });
}

/**
 * Signs `person` in through the pages (their code when they have MFA) and
 * answers the client holding the session cookie and where it was sent.
 */
export async function signIn(e2e: CheckoutE2e, person: MerchantPerson): Promise<{ client: PageClient; location: string | null }> {
  const client = new PageClient(e2e.checkoutUrl);
  let res = await postLogin(client, person.email, person.password);
  if (person.totpSecret) {
    expect(res.status, textOfHtml(res.text)).toBe(200);
    res = await postCode(client, res, (await totp.next(person.totpSecret)).code);
  }
  expect(res.status, textOfHtml(res.text)).toBe(303);
  expect(client.cookies.has(SESSION_COOKIE)).toBe(true);
  return { client, location: res.location };
}

/** Signs in and, for a person of several merchants, chooses `merchantUuid`. */
export async function signInFor(e2e: CheckoutE2e, person: MerchantPerson, merchantUuid?: string): Promise<PageClient> {
  const { client, location } = await signIn(e2e, person);
  if (location === "/merchant/choose") {
    const choose = await client.get("/merchant/choose");
    const res = await client.post("/merchant/choose", { csrf_token: csrfTokenIn(choose.text), merchant_uuid: merchantUuid! });
    expect(res.status).toBe(303);
  }
  return client;
}

/** The text of the element with `id` (tags removed); fails when there is none. */
export function textOf(html: string, id: string): string {
  const element = elementById(html, id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element.text;
}

/** The reason codes an element shows, in order. */
export function reasonCodesIn(html: string, id: string): string[] {
  const element = elementById(html, id);
  if (!element) throw new Error(`the page has no #${id}`);
  return [...element.inner.matchAll(/<code class="mono reason-code">([a-z_]+)<\/code>/g)].map((m) => m[1]!);
}

/** How many checkout sessions the merchant has. */
export async function checkoutCount(e2e: CheckoutE2e, merchantUuid: string): Promise<number> {
  return Number((await e2e.payins.listCheckoutSessions({ merchantUuid, limit: 1, offset: 0 })).total);
}

/** How many pay-in intents the merchant has. */
export async function payInCount(e2e: CheckoutE2e, merchantUuid: string): Promise<number> {
  return Number((await e2e.payins.listPayInIntents({ merchantUuid, limit: 1, offset: 0 })).total);
}

/** A valid new-checkout form (USDT on BEP20 by default). */
export function checkoutForm(csrfToken: string, over: Record<string, string> = {}): Record<string, string> {
  return { csrf_token: csrfToken, description: "Order 1001: two mugs", amount: "10.50", jurisdiction: "DE", reference: "ORDER-1001", pair: "usdt/bep20", ...over };
}

/** Posts a form with repeated fields (several `pair` values). */
export function postPairs(client: PageClient, path: string, fields: [string, string][]): Promise<PageResponse> {
  return client.request("POST", path, { body: new URLSearchParams(fields).toString(), headers: { "content-type": "application/x-www-form-urlencoded" } });
}

/** Fresh observer cursors: readiness's observer part holds for a minute. */
export { setObserverCursors } from "@payin/testing";
