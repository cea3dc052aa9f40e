/**
 * What a careless or hostile client sends the checkout gateway, and that
 * every answer is still a readable page (or the status route's JSON error)
 * with the security headers, never a 500 or a stack trace: wrong content
 * types, oversized and non-UTF-8 forms, repeated and garbage fields, bad page
 * numbers and ids, overlong tokens, malformed escapes, unknown methods, the
 * HTTP parser's own refusals, revalidated assets.
 */
import net from "node:net";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestMerchant } from "@payin/testing";
import { checkoutCount, checkoutForm, payInCount, setObserverCursors, signInFor } from "./merchant-support.js";
import { csrfTokenIn, expectNoInlineScriptOrStyle, expectSecurityHeaders, merchantPerson, PageClient, readPlatformLog, readyMerchant, useCheckoutPlatform, type PageResponse } from "./support.js";

// Creation is limited to 20 submissions a minute; this file submits more than that on purpose.
const e2e = useCheckoutPlatform({ env: { RATE_LIMIT_CHECKOUT_CREATE: "1000" } });

let shop: TestMerchant;
let admin: PageClient;
let csrf: string;
let token: string;
let checkoutUuid: string;

beforeAll(async () => {
  shop = await readyMerchant(e2e, "Sturdy Shop");
  admin = await signInFor(e2e, await merchantPerson(e2e, [shop.uuid]));
  csrf = csrfTokenIn((await admin.get("/merchant/checkouts/new")).text);
  const created = await e2e.payins.createCheckoutSession({
    merchantUuid: shop.uuid,
    description: "A sturdy checkout",
    amount: "10.5",
    pairs: [{ asset: "usdt", rail: "bep20" }],
    jurisdiction: "DE",
  });
  token = created.token;
  checkoutUuid = created.session!.checkoutUuid;
}, 120_000);

// The test platform has no chains: the observer's cursors say it advanced just now.
beforeEach(async () => {
  await setObserverCursors(e2e.platform, { bep20: new Date(), erc20: new Date() });
});

/** A refusal a person can read: the status asked for, an HTML page with a heading, the headers, no stack trace. */
function expectReadablePage(res: PageResponse, status: number, what: string): void {
  expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBe(status);
  expect(res.headers.get("content-type"), what).toMatch(/^text\/html;\s*charset=utf-8$/i);
  expect(res.text, what).toMatch(/<html lang="en"/);
  expect(res.text, what).toMatch(/<h1[\s>]/);
  expect(res.text, what).not.toMatch(/\bat .+\.(ts|js):\d+/);
  expectSecurityHeaders(res);
  expect(res.headers.get("x-frame-options"), what).toBe("DENY");
  expect(res.headers.get("cache-control"), what).toBe("no-store");
  expectNoInlineScriptOrStyle(res.text);
}

/** Sends `body` as is, with the headers given (the form helper would encode it). */
function raw(client: PageClient, method: string, path: string, body: string | Buffer | undefined, headers: Record<string, string>): Promise<PageResponse> {
  return client.request(method, path, { body: body as string | undefined, headers });
}

const FORM = { "content-type": "application/x-www-form-urlencoded" };

describe("payer routes", () => {
  it("answer bodies of another type, too large or not UTF-8 with a page, starting nothing", async () => {
    const payer = new PageClient(e2e.checkoutUrl);
    const path = `/c/${token}/start`;
    const cases: [string, string | Buffer, Record<string, string>, number][] = [
      ["JSON", JSON.stringify({ pair: "usdt/bep20" }), { "content-type": "application/json" }, 415],
      ["multipart", "--x\r\ncontent-disposition: form-data; name=pair\r\n\r\nusdt/bep20\r\n--x--\r\n", { "content-type": "multipart/form-data; boundary=x" }, 415],
      ["no type", "pair=usdt/bep20", {}, 415],
      ["100 KiB", `pair=${"a".repeat(100 * 1024)}`, FORM, 413],
      ["not UTF-8", Buffer.from([0x70, 0x61, 0x69, 0x72, 0x3d, 0xff, 0xfe]), FORM, 400],
      ["an escape that is not UTF-8", "pair=%FF%FE", FORM, 400],
      ["a NUL", "pair=usdt%00/bep20", FORM, 400],
      ["garbage", "pair=../../etc/passwd", FORM, 400],
      ["too many slashes", "pair=usdt/bep20/x", FORM, 400],
      ["a long value", `pair=${"usdt/".repeat(2_000)}`, FORM, 400],
      ["two pairs", "pair=usdt/bep20&pair=usdc/erc20", FORM, 400],
    ];
    for (const [what, body, headers, status] of cases) expectReadablePage(await raw(payer, "POST", path, body, headers), status, what);
    expect(await payInCount(e2e, shop.uuid)).toBe(0);
  });

  it("answer unknown methods and malformed paths with a page (JSON on the status route)", async () => {
    const payer = new PageClient(e2e.checkoutUrl);
    expectReadablePage(await payer.request("DELETE", `/c/${token}`), 405, "DELETE page");
    expectReadablePage(await payer.request("GET", `/c/${token}/start`), 405, "GET start");
    expectReadablePage(await payer.request("PROPFIND", `/c/${token}`), 501, "PROPFIND page");
    expectReadablePage(await payer.get("/c/%E0%A4%A"), 404, "a broken escape");
    expectReadablePage(await payer.get("/c/%"), 404, "a lone percent sign");
    expectReadablePage(await payer.get(`/c/${"A".repeat(8_000)}`), 404, "an 8,000-character token");
    const post = await payer.request("POST", `/c/${token}/status`);
    expect(post.status).toBe(405);
    expect(post.json.error.code).toBe("METHOD_NOT_ALLOWED");
    expectSecurityHeaders(post);
    for (const path of ["/c/%E0%A4%A/status", `/c/${"A".repeat(43)}/status/`, `/c/${"A".repeat(8_000)}/status`]) {
      const res = await payer.get(path);
      expect(res.status, path.slice(0, 60)).toBe(404);
      expect(res.json.error.code).toBe("NOT_FOUND");
      expectSecurityHeaders(res);
    }
  });
});

describe("paths", () => {
  it("answer a trailing slash or another case with the 404 page; a token keeps its case", async () => {
    const payer = new PageClient(e2e.checkoutUrl);
    for (const path of [`/c/${token}/`, `/C/${token}`, `/c/${token}/Start`, "/merchant/", "/Merchant", "/merchant/login/", "/merchant/Checkouts", "/hosted-checkout/app.css/", "/Hosted-Checkout/app.css"]) {
      expectReadablePage(await payer.get(path), 404, path.slice(0, 60));
    }
    expectReadablePage(await payer.request("POST", `/c/${token}/start/`, { body: "pair=usdt/bep20", headers: FORM }), 404, "start/");
    for (const path of [`/c/${token}/status/`, `/c/${token}/Status`]) {
      const res = await payer.get(path);
      expect(res.status, path.slice(0, 60)).toBe(404);
    }
    expect((await payer.get("/health/")).status).toBe(404);
    expect((await payer.get("/HEALTH")).status).toBe(404);
    // The routes themselves, and a token whose case is changed is another (unknown) token.
    expect((await payer.get(`/c/${token}`)).status).toBe(200);
    expect((await payer.get("/hosted-checkout/app.css")).status).toBe(200);
    expect((await payer.get("/health")).status).toBe(200);
    expect((await payer.get("/merchant/login")).status).toBe(200);
    const swapped = token.replace(/[a-zA-Z]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
    expectReadablePage(await payer.get(`/c/${swapped}`), 404, "a token in another case");
    expect(await payInCount(e2e, shop.uuid)).toBe(0);
    // Whatever case or shape the path had, no log line holds the token.
    const log = readPlatformLog(e2e);
    expect(log.length).toBeGreaterThan(0);
    expect(log.includes(token)).toBe(false);
    expect(log.includes(swapped)).toBe(false);
  });
});

describe("merchant forms", () => {
  it("answer bodies of another type, too large or not UTF-8 with a page, creating nothing", async () => {
    const path = "/merchant/checkouts/new";
    const valid = new URLSearchParams(checkoutForm(csrf)).toString();
    const cases: [string, string | Buffer, Record<string, string>, number][] = [
      ["JSON", JSON.stringify(checkoutForm(csrf)), { "content-type": "application/json" }, 415],
      ["text", valid, { "content-type": "text/plain" }, 415],
      ["1 MiB", `${valid}&description=${"x".repeat(1024 * 1024)}`, FORM, 413],
      ["not UTF-8", Buffer.concat([Buffer.from(`${valid}&reference=`), Buffer.from([0xc3, 0x28])]), FORM, 400],
      ["a NUL in the description", `${valid}&description=a%00b`.replace(/description=[^&]*&/, ""), FORM, 400],
    ];
    for (const [what, body, headers, status] of cases) expectReadablePage(await raw(admin, "POST", path, body, headers), status, what);
    expect(await checkoutCount(e2e, shop.uuid)).toBe(1);
  });

  it("answer garbage in each field with the form again (400), creating nothing; a repeated field is read once", async () => {
    const cases: Record<string, string>[] = [
      { amount: "1e9" },
      { amount: "-1" },
      { amount: "0x10" },
      { amount: "１２" },
      { amount: "1,5" },
      { amount: "NaN" },
      { amount: "9".repeat(5_000) },
      { amount: "0.0000001" },
      { amount: "0" },
      { pair: "usdt" },
      { pair: "usdt/bep20/bep20" },
      { pair: "x".repeat(3_000) },
      { jurisdiction: "D" },
      { jurisdiction: "ZZ" },
      { jurisdiction: "😀" },
      { description: "" },
      { description: "d".repeat(501) },
      { reference: "r".repeat(256) },
    ];
    for (const over of cases) {
      const res = await admin.post("/merchant/checkouts/new", checkoutForm(csrf, over));
      expectReadablePage(res, 400, JSON.stringify(over).slice(0, 80));
    }
    expect(await checkoutCount(e2e, shop.uuid)).toBe(1);
    // A field given twice counts by its first value (a pair given twice is one pair).
    const repeated = await raw(admin, "POST", "/merchant/checkouts/new", `${new URLSearchParams(checkoutForm(csrf)).toString()}&amount=x&description=&pair=usdt/bep20`, FORM);
    expect(repeated.status, repeated.text.slice(0, 300)).toBe(201);
    expect(await checkoutCount(e2e, shop.uuid)).toBe(2);
  });

  it("answer bad page numbers and checkout ids with a page", async () => {
    for (const page of ["-1", "abc", "1e9", "0", "99999999", "1.5", "%00", "1&page=2"]) {
      expectReadablePage(await admin.get(`/merchant/checkouts?page=${page}`), 400, `page=${page}`);
    }
    for (const uuid of ["x", "..x", "%E0%A4%A", "0".repeat(1_000), "00000000-0000-0000-0000-000000000000", checkoutUuid.replace(/-/g, "")]) {
      expectReadablePage(await admin.get(`/merchant/checkouts/${uuid}`), 404, `detail of ${uuid.slice(0, 40)}`);
      expectReadablePage(await admin.post(`/merchant/checkouts/${uuid}/disable`, { csrf_token: csrf }), 404, `disable ${uuid.slice(0, 40)}`);
    }
    expectReadablePage(await admin.request("PUT", `/merchant/checkouts/${checkoutUuid}/disable`), 405, "PUT disable");
    // The upper-case form of a real id is that checkout.
    expect((await admin.get(`/merchant/checkouts/${checkoutUuid.toUpperCase()}`)).status).toBe(200);
  });

  it("answer garbage sign-in forms and cookies with a page", async () => {
    const person = new PageClient(e2e.checkoutUrl);
    const login = await person.get("/merchant/login");
    const loginCsrf = csrfTokenIn(login.text);
    for (const fields of [
      { email: "a".repeat(10_000), password: "p".repeat(20) },
      { email: "x@example.com", password: "p".repeat(10_000) },
      { email: "x\u0000@example.com", password: "p".repeat(20) },
      { email: "x@example.com", password: "" },
    ]) {
      const res = await person.post("/merchant/login", { csrf_token: loginCsrf, ...fields });
      expect(res.status, JSON.stringify(fields).slice(0, 60)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expectSecurityHeaders(res);
    }
    const mfa = await person.post("/merchant/login/mfa", { csrf_token: loginCsrf, mfa_challenge_token: "x".repeat(600), code: "123456" });
    expectReadablePage(mfa, 401, "a long challenge token");
    for (const cookie of ["__Host-payin_checkout=%%%", `__Host-payin_checkout=${"a".repeat(4_000)}`, "__Host-payin_checkout=a; __Host-payin_checkout=b", "__Host-payin_checkout"]) {
      const res = await new PageClient(e2e.checkoutUrl).get("/merchant", { cookie });
      expect(res.status, cookie.slice(0, 60)).toBe(303);
      expect(res.location).toBe("/merchant/login");
      expectSecurityHeaders(res);
    }
    const choose = await admin.post("/merchant/choose", { csrf_token: csrf, merchant_uuid: "'; drop table merchants; --" });
    expectReadablePage(choose, 403, "choose a merchant that is none");
  });
});

describe("every answer", () => {
  it("carries the security headers: assets, their 304 revalidation, HEAD and OPTIONS", async () => {
    const client = new PageClient(e2e.checkoutUrl);
    for (const asset of ["/hosted-checkout/app.css", "/hosted-checkout/status.js"]) {
      const first = await client.get(asset);
      expect(first.status).toBe(200);
      expectSecurityHeaders(first);
      const again = await client.get(asset, { "if-none-match": first.headers.get("etag")! });
      expect(again.status).toBe(304);
      expectSecurityHeaders(again);
      const head = await client.request("HEAD", asset);
      expect(head.status).toBe(200);
      expectSecurityHeaders(head);
    }
    const options = await client.request("OPTIONS", `/c/${token}`);
    expect(options.status).toBeLessThan(500);
    expectSecurityHeaders(options);
  });

  it("carries security headers even when the HTTP parser refuses the request", async () => {
    const { hostname, port } = new URL(e2e.checkoutUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), hostname, () => socket.write("GET /c/x HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"));
      let text = "";
      socket.on("data", (chunk) => (text += chunk.toString("latin1")));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/\r\ncontent-security-policy: [^\r]*frame-ancestors 'none'/i);
    expect(answer).toMatch(/\r\nreferrer-policy: no-referrer\r\n/i);
    expect(answer).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
  });
});
