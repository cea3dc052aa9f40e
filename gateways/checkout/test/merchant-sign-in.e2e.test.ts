import { totpCodeAt, totpStepAt } from "@payin/testing";
import { describe, expect, it } from "vitest";
import {
  checkoutCount,
  checkoutForm,
  enrolled,
  LOGIN_COOKIE,
  MERCHANT_COOKIE,
  postCode,
  postLogin,
  SESSION_COOKIE,
  signIn,
  signInFor,
  textOf,
  totp,
} from "./merchant-support.js";
import { csrfTokenIn, expectNoInlineScriptOrStyle, expectSecurityHeaders, merchantPerson, PageClient, readyMerchant, textOfHtml, useCheckoutPlatform } from "./support.js";

const e2e = useCheckoutPlatform();

/** The Set-Cookie line of `name` in an answer. */
function setCookieLine(res: { headers: Headers }, name: string): string | undefined {
  return res.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));
}

/**
 * Checks a Set-Cookie line of the area: `name=<value>` with exactly Path=/,
 * Max-Age, Secure, HttpOnly and SameSite=Lax (in any order, no Domain); answers
 * its Max-Age.
 */
function expectAreaCookie(line: string | undefined, name: string, value: RegExp): number {
  expect(line).toBeDefined();
  const [pair, ...attributes] = line!.split("; ");
  expect(pair).toMatch(new RegExp(`^${name}=(${value.source})$`));
  const maxAge = attributes.find((attribute) => /^Max-Age=\d+$/.test(attribute));
  expect(maxAge, line).toBeDefined();
  expect([...attributes].sort(), line).toEqual([maxAge!, "HttpOnly", "Path=/", "SameSite=Lax", "Secure"].sort());
  return Number(maxAge!.slice("Max-Age=".length));
}

describe("merchant sign-in", () => {
  it("signs a person with MFA in with their TOTP code; the same step is never accepted twice", async () => {
    const merchant = await readyMerchant(e2e, "Mfa Mugs");
    const person = enrolled(await merchantPerson(e2e, [merchant.uuid], { mfa: true }));
    const client = new PageClient(e2e.checkoutUrl);

    const login = await client.get("/merchant/login");
    expect(login.status).toBe(200);
    expectSecurityHeaders(login);
    expectNoInlineScriptOrStyle(login.text);
    expect(login.text).toContain('<html lang="en">');
    expectAreaCookie(setCookieLine(login, LOGIN_COOKIE), LOGIN_COOKIE, /[A-Za-z0-9_-]+/);

    const challenge = await client.post("/merchant/login", { csrf_token: csrfTokenIn(login.text), email: person.email, password: person.password });
    expect(challenge.status).toBe(200);
    expect(textOfHtml(challenge.text)).toContain("Enter your sign-in code");
    // A challenge is no session: no session cookie yet.
    expect(setCookieLine(challenge, SESSION_COOKIE)).toBeUndefined();
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);

    const { code, step } = await totp.next(person.totpSecret!);
    const done = await postCode(client, challenge, code);
    expect(done.status).toBe(303);
    expect(done.location).toBe("/merchant");
    // Max-Age runs to the session's absolute expiry (12 hours by default).
    const maxAge = expectAreaCookie(setCookieLine(done, SESSION_COOKIE), SESSION_COOKIE, /[A-Za-z0-9_-]{43}/);
    expect(maxAge).toBeGreaterThan(11 * 3600);
    expect(maxAge).toBeLessThanOrEqual(12 * 3600);

    const dashboard = await client.get("/merchant");
    expect(dashboard.status).toBe(200);
    expect(textOf(dashboard.text, "merchant-name")).toBe("Mfa Mugs");
    expect(dashboard.text).toContain('action="/merchant/logout"');
    expectSecurityHeaders(dashboard);
    expectNoInlineScriptOrStyle(dashboard.text);

    // The same step's code again, on a new sign-in: refused, no session.
    const again = new PageClient(e2e.checkoutUrl);
    const secondChallenge = await postLogin(again, person.email, person.password);
    expect(secondChallenge.status).toBe(200);
    const replay = await postCode(again, secondChallenge, code);
    expect(replay.status).toBe(401);
    expect(textOfHtml(replay.text)).toContain("That code is not right, or it has already been used");
    expect(again.cookies.has(SESSION_COOKIE)).toBe(false);
    totp.used(person.totpSecret!, step);
  });

  it("shows the code form again after a wrong code, and signs in with the right one on the same challenge", async () => {
    const merchant = await readyMerchant(e2e, "Retry Records");
    const person = enrolled(await merchantPerson(e2e, [merchant.uuid], { mfa: true }));
    const client = new PageClient(e2e.checkoutUrl);
    const challenge = await postLogin(client, person.email, person.password);
    // The code of a step ten minutes ago: not one identity accepts now.
    const wrong = await postCode(client, challenge, totpCodeAt(person.totpSecret!, totpStepAt() - 20));
    expect(wrong.status).toBe(401);
    expect(textOfHtml(wrong.text)).toContain("That code is not right");
    expect(wrong.text).toContain('name="mfa_challenge_token"');
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
    const right = await postCode(client, wrong, (await totp.next(person.totpSecret!)).code);
    expect(right.status).toBe(303);
    expect((await client.get("/merchant")).status).toBe(200);
  });

  it("signs a person without MFA in with the password alone", async () => {
    const merchant = await readyMerchant(e2e, "Plain Pottery");
    const person = await merchantPerson(e2e, [merchant.uuid]);
    const { client, location } = await signIn(e2e, person);
    expect(location).toBe("/merchant");
    const page = await client.get("/merchant");
    expect(page.status).toBe(200);
    expect(textOf(page.text, "merchant-name")).toBe("Plain Pottery");
    // Signed in, the sign-in page sends the person on.
    const login = await client.get("/merchant/login");
    expect(login.status).toBe(303);
    expect(login.location).toBe("/merchant");
  });

  it("answers a wrong password and an unknown email alike: the form again (401), the email kept, nothing said about the account", async () => {
    const merchant = await readyMerchant(e2e, "Secret Shop");
    const person = await merchantPerson(e2e, [merchant.uuid]);
    const client = new PageClient(e2e.checkoutUrl);
    const wrong = await postLogin(client, person.email, "not-the-password-at-all");
    const unknown = await postLogin(client, "nobody-here@example.com", "not-the-password-at-all");
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(textOf(res.text, "login-error")).toBe("The email address or password is not right. Check both and try again.");
      expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
    }
    expect(wrong.text).toContain(`value="${person.email}"`);
    expect(unknown.text).toContain('value="nobody-here@example.com"');
    const empty = await postLogin(client, "", "");
    expect(empty.status).toBe(400);
  });

  it("answers 429 with Retry-After once identity throttles the sign-in attempts", async () => {
    const merchant = await readyMerchant(e2e, "Throttle Tea");
    const person = await merchantPerson(e2e, [merchant.uuid]);
    const client = new PageClient(e2e.checkoutUrl);
    // Five failures for one email from one address are allowed, then identity refuses for a while.
    for (let attempt = 0; attempt < 5; attempt++) expect((await postLogin(client, person.email, "wrong-password-123")).status).toBe(401);
    const throttled = await postLogin(client, person.email, person.password);
    expect(throttled.status).toBe(429);
    const retryAfter = Number(throttled.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(textOfHtml(throttled.text)).toContain("Too many sign-in attempts");
    expect(textOfHtml(throttled.text)).toContain(`Please wait ${retryAfter} seconds`);
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
    expectSecurityHeaders(throttled);
  });

  it("lets a person of two merchants choose one, and ignores a merchant cookie for a merchant they do not belong to", async () => {
    const first = await readyMerchant(e2e, "First Fabrics");
    const second = await readyMerchant(e2e, "Second Saddles");
    const stranger = await readyMerchant(e2e, "Stranger Steel");
    const person = await merchantPerson(e2e, [first.uuid, second.uuid]);
    const { client, location } = await signIn(e2e, person);
    expect(location).toBe("/merchant/choose");
    // No choice yet: every page sends the person to make one.
    const before = await client.get("/merchant/checkouts");
    expect(before.status).toBe(303);
    expect(before.location).toBe("/merchant/choose");

    const choose = await client.get("/merchant/choose");
    expect(choose.status).toBe(200);
    const text = textOfHtml(choose.text);
    expect(text).toContain("First Fabrics");
    expect(text).toContain("Second Saddles");
    expect(text).not.toContain("Stranger Steel");
    expectNoInlineScriptOrStyle(choose.text);

    // Choosing a merchant of someone else's: refused, nothing chosen.
    const forgedChoice = await client.post("/merchant/choose", { csrf_token: csrfTokenIn(choose.text), merchant_uuid: stranger.uuid });
    expect(forgedChoice.status).toBe(403);
    expect(client.cookies.has(MERCHANT_COOKIE)).toBe(false);
    // Without the CSRF token: refused.
    expect((await client.post("/merchant/choose", { merchant_uuid: second.uuid })).status).toBe(403);
    expect(client.cookies.has(MERCHANT_COOKIE)).toBe(false);

    const chosen = await client.post("/merchant/choose", { csrf_token: csrfTokenIn(choose.text), merchant_uuid: second.uuid });
    expect(chosen.status).toBe(303);
    expect(chosen.location).toBe("/merchant");
    expectAreaCookie(setCookieLine(chosen, MERCHANT_COOKIE), MERCHANT_COOKIE, new RegExp(second.uuid));
    const dashboard = await client.get("/merchant");
    expect(textOf(dashboard.text, "merchant-name")).toBe("Second Saddles");
    expect(dashboard.text).toContain('href="/merchant/choose"');

    // A forged cookie naming a merchant the person is not a member of is ignored.
    client.cookies.set(MERCHANT_COOKIE, stranger.uuid);
    const forged = await client.get("/merchant");
    expect(forged.status).toBe(303);
    expect(forged.location).toBe("/merchant/choose");
    // A person of one merchant with such a cookie sees their own merchant.
    const single = await signInFor(e2e, await merchantPerson(e2e, [first.uuid]));
    single.cookies.set(MERCHANT_COOKIE, stranger.uuid);
    const own = await single.get("/merchant");
    expect(own.status).toBe(200);
    expect(textOf(own.text, "merchant-name")).toBe("First Fabrics");
  });

  it("signs out with the CSRF token only; then the old session cookie opens nothing", async () => {
    const merchant = await readyMerchant(e2e, "Logout Lamps");
    const person = await merchantPerson(e2e, [merchant.uuid]);
    const { client } = await signIn(e2e, person);
    const page = await client.get("/merchant/profile");
    const oldToken = client.cookies.get(SESSION_COOKIE)!;

    const noToken = await client.post("/merchant/logout", {});
    expect(noToken.status).toBe(403);
    const wrongToken = await client.post("/merchant/logout", { csrf_token: "forged" });
    expect(wrongToken.status).toBe(403);
    expect((await client.get("/merchant")).status).toBe(200);

    const out = await client.post("/merchant/logout", { csrf_token: csrfTokenIn(page.text) });
    expect(out.status).toBe(303);
    expect(out.location).toBe("/merchant/login?signed_out=1");
    expect(setCookieLine(out, SESSION_COOKIE)).toMatch(/Max-Age=0/);
    expect(setCookieLine(out, MERCHANT_COOKIE)).toMatch(/Max-Age=0/);
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
    expect(textOfHtml((await client.get("/merchant/login?signed_out=1")).text)).toContain("You have signed out.");

    const replay = new PageClient(e2e.checkoutUrl);
    replay.cookies.set(SESSION_COOKIE, oldToken);
    const after = await replay.get("/merchant");
    expect(after.status).toBe(303);
    expect(after.location).toBe("/merchant/login");
  });

  it("refuses a sign-in form without its CSRF cookie and field, or from another site, and signs nobody in", async () => {
    const merchant = await readyMerchant(e2e, "Csrf Candles");
    const person = await merchantPerson(e2e, [merchant.uuid]);
    const client = new PageClient(e2e.checkoutUrl);
    const page = await client.get("/merchant/login");
    const token = csrfTokenIn(page.text);
    const noField = await client.post("/merchant/login", { email: person.email, password: person.password });
    expect(noField.status).toBe(403);
    const wrongField = await client.post("/merchant/login", { csrf_token: `${token}x`, email: person.email, password: person.password });
    expect(wrongField.status).toBe(403);
    const noCookie = new PageClient(e2e.checkoutUrl);
    expect((await noCookie.post("/merchant/login", { csrf_token: token, email: person.email, password: person.password })).status).toBe(403);
    const crossSite = await client.post("/merchant/login", { csrf_token: token, email: person.email, password: person.password }, { origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    for (const c of [client, noCookie]) expect(c.cookies.has(SESSION_COOKIE)).toBe(false);
    expectSecurityHeaders(noField);
  });

  it("sends every page to the sign-in without a session, and a form post without one creates nothing", async () => {
    const merchant = await readyMerchant(e2e, "Anonymous Anvils");
    const client = new PageClient(e2e.checkoutUrl);
    for (const path of ["/merchant", "/merchant/onboarding", "/merchant/profile", "/merchant/checkouts", "/merchant/checkouts/new", "/merchant/choose", `/merchant/checkouts/${merchant.uuid}`]) {
      const res = await client.get(path);
      expect(res.status, path).toBe(303);
      expect(res.location, path).toBe("/merchant/login");
      expectSecurityHeaders(res);
    }
    // A session token that identity does not know is no session.
    client.cookies.set(SESSION_COOKIE, "A".repeat(43));
    expect((await client.get("/merchant")).location).toBe("/merchant/login");
    const before = await checkoutCount(e2e, merchant.uuid);
    const create = await client.post("/merchant/checkouts/new", checkoutForm("whatever"));
    expect(create.status).toBe(303);
    expect(create.location).toBe("/merchant/login");
    const { session } = await e2e.payins.createCheckoutSession({ merchantUuid: merchant.uuid, description: "d", amount: "1", pairs: [{ asset: "usdt", rail: "bep20" }], jurisdiction: "DE" });
    const disable = await client.post(`/merchant/checkouts/${session!.checkoutUuid}/disable`, { csrf_token: "whatever" });
    expect(disable.status).toBe(303);
    expect(disable.location).toBe("/merchant/login");
    expect(await checkoutCount(e2e, merchant.uuid)).toBe(before + 1);
    const { session: still } = await e2e.payins.getCheckoutSession({ merchantUuid: merchant.uuid, checkoutUuid: session!.checkoutUuid });
    expect(still!.state).toBe(session!.state);
  });

  it("keeps a platform admin who belongs to no merchant out of the merchant area", async () => {
    const admin = enrolled(await merchantPerson(e2e, [], { roles: ["platform_admin"], mfa: true }));
    const client = new PageClient(e2e.checkoutUrl);
    const challenge = await postLogin(client, admin.email, admin.password);
    expect(challenge.status).toBe(200);
    const res = await postCode(client, challenge, (await totp.next(admin.totpSecret!)).code);
    expect(res.status).toBe(403);
    expect(textOfHtml(res.text)).toContain("Your account is not a member of any merchant");
    expect(client.cookies.has(SESSION_COOKIE)).toBe(false);
    expect((await client.get("/merchant")).location).toBe("/merchant/login");
    // A platform admin who is a member but has no MFA: privileged, so no session without it.
    const merchant = await readyMerchant(e2e, "Admin Annex");
    const bareAdmin = await merchantPerson(e2e, [merchant.uuid], { roles: ["platform_admin"] });
    const bare = new PageClient(e2e.checkoutUrl);
    const refused = await postLogin(bare, bareAdmin.email, bareAdmin.password);
    expect(refused.status).toBe(403);
    expect(textOfHtml(refused.text)).toContain("Two-factor authentication is needed");
    expect(bare.cookies.has(SESSION_COOKIE)).toBe(false);
    // Nor does a merchant person without a membership get in.
    const loner = await merchantPerson(e2e, []);
    const lonely = await postLogin(new PageClient(e2e.checkoutUrl), loner.email, loner.password);
    expect(lonely.status).toBe(403);
    expect(textOfHtml(lonely.text)).toContain("not a member of any merchant");
  });
});
