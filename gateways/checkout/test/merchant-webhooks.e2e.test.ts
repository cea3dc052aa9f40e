/**
 * The merchant's webhook pages on the real platform: an admin adds an
 * endpoint (its signing secret shown once and on no page after), sends a test
 * event that a receiver on loopback gets and the log shows, edits, disables,
 * rotates the secret and deletes; a member without webhook.manage, a form
 * without the CSRF token, a form for another merchant, another merchant's
 * endpoint, malformed ids and refused URLs change nothing and are answered
 * with readable pages. The test platform allows http receivers on loopback
 * (WEBHOOK_ALLOW_INSECURE_URLS), as `npm start` does.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestMerchant } from "@payin/testing";
import { signInFor, textOf } from "./merchant-support.js";
import {
  csrfTokenIn,
  elementById,
  eventually,
  expectNoInlineScriptOrStyle,
  expectSecurityHeaders,
  merchantPerson,
  PageClient,
  readyMerchant,
  textOfHtml,
  useCheckoutPlatform,
  type PageResponse,
} from "./support.js";

const e2e = useCheckoutPlatform();

const SECRET = /whsec_[A-Za-z0-9+/]+=*/;

/** What the loopback receiver got: each request's headers and body. */
const received: { path: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
let receiver: http.Server;
let receiverUrl = "";

let shop: TestMerchant;
let otherShop: TestMerchant;
let admin: PageClient;
let member: PageClient;
let otherAdmin: PageClient;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(204).end();
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // Webhooks need no readiness: merchants without a wallet start faster.
  shop = await readyMerchant(e2e, "Webhook Works", { xpub: null });
  otherShop = await readyMerchant(e2e, "Other Hooks", { xpub: null });
  admin = await signInFor(e2e, await merchantPerson(e2e, [shop.uuid]));
  member = await signInFor(e2e, await merchantPerson(e2e, [shop.uuid], { roles: ["merchant_member"] }));
  otherAdmin = await signInFor(e2e, await merchantPerson(e2e, [otherShop.uuid]));
}, 180_000);

afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

/** The endpoints the overview lists (their ids). */
async function endpointIds(client: PageClient): Promise<string[]> {
  const page = await client.get("/merchant/webhooks");
  expect(page.status, textOfHtml(page.text)).toBe(200);
  return [...page.text.matchAll(/<li class="card" id="endpoint-([0-9a-f-]{36})">/g)].map((m) => m[1]!);
}

/** Adds an endpoint through the form; the answer and the new endpoint's id. */
async function addEndpoint(client: PageClient, fields: [string, string][]): Promise<{ res: PageResponse; uuid: string | null }> {
  const form = await client.get("/merchant/webhooks/new");
  expect(form.status).toBe(200);
  const body = new URLSearchParams([["csrf_token", csrfTokenIn(form.text)], ["merchant_uuid", merchantOf(form.text)], ...fields]);
  const res = await client.request("POST", "/merchant/webhooks/new", { body: body.toString(), headers: { "content-type": "application/x-www-form-urlencoded" } });
  const uuid = /href="\/merchant\/webhooks\/([0-9a-f-]{36})">View this endpoint/.exec(res.text)?.[1] ?? null;
  return { res, uuid };
}

function merchantOf(html: string): string {
  const match = /name="merchant_uuid" value="([^"]+)"/.exec(html);
  if (!match) throw new Error("the page has no form naming its merchant");
  return match[1]!;
}

/** The hidden fields of the forms of `path`'s page. */
async function formFields(client: PageClient, path: string): Promise<Record<string, string>> {
  const page = await client.get(path);
  expect(page.status, textOfHtml(page.text)).toBe(200);
  return { csrf_token: csrfTokenIn(page.text), merchant_uuid: merchantOf(page.text) };
}

/** Every page of an endpoint that exists without a form having been posted. */
const pagesOf = (uuid: string) => ["/merchant/webhooks", `/merchant/webhooks/${uuid}`, `/merchant/webhooks/${uuid}/edit`, `/merchant/webhooks/${uuid}/delete`, "/merchant"];

describe("merchant webhooks", () => {
  it("adds an endpoint and shows its signing secret once; no page shows it again; rotating shows a new one once", async () => {
    const { res, uuid } = await addEndpoint(admin, [
      ["url", `${receiverUrl}/hooks/payin`],
      ["scope", "some"],
      ["event_type", "pay_in_intent.paid"],
      ["event_type", "checkout.paid"],
      ["description", "Order system <prod>"],
    ]);
    expect(res.status, textOfHtml(res.text)).toBe(201);
    expectSecurityHeaders(res);
    expectNoInlineScriptOrStyle(res.text);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const secret = textOf(res.text, "signing-secret");
    expect(secret).toMatch(new RegExp(`^${SECRET.source}$`));
    // 24 to 64 random bytes.
    const bytes = Buffer.from(secret.slice("whsec_".length), "base64").length;
    expect(bytes).toBeGreaterThanOrEqual(24);
    expect(bytes).toBeLessThanOrEqual(64);
    expect(textOf(res.text, "shown-once")).toContain("This secret is shown only once");
    expect(textOf(res.text, "shown-once")).toContain("will not be shown again");
    // The copy button waits for the script (hidden without it); the secret is in a field to select by hand.
    const copy = /<button[^>]*data-copy="([^"]+)"[^>]*>/.exec(res.text);
    expect(copy?.[0]).toContain("data-js-only hidden");
    expect(copy?.[1]).toBe(secret);
    expect(res.text).toContain("Order system &lt;prod&gt;");
    expect(uuid).not.toBeNull();

    for (const path of pagesOf(uuid!)) {
      const page = await admin.get(path);
      expect(page.status, path).toBe(200);
      expect(page.text, path).not.toContain(secret);
      expect(page.text, path).not.toMatch(SECRET);
    }
    const overview = await admin.get("/merchant/webhooks");
    const row = textOf(overview.text, `endpoint-${uuid}`);
    expect(row).toContain(`${receiverUrl}/hooks/payin`);
    expect(row).toContain("pay_in_intent.paid");
    expect(row).toContain("checkout.paid");
    expect(row).toContain("Enabled");
    // The area's navigation leads there.
    expect((await admin.get("/merchant")).text).toContain('href="/merchant/webhooks"');

    const rotated = await admin.post(`/merchant/webhooks/${uuid}/rotate`, await formFields(admin, `/merchant/webhooks/${uuid}`));
    expect(rotated.status, textOfHtml(rotated.text)).toBe(200);
    const newSecret = textOf(rotated.text, "signing-secret");
    expect(newSecret).toMatch(new RegExp(`^${SECRET.source}$`));
    expect(newSecret).not.toBe(secret);
    // The previous secret signs beside it for 24 hours.
    const until = /datetime="([^"]+)"/.exec(elementById(rotated.text, "grace")!.inner)?.[1];
    const graceMs = new Date(until!).getTime() - Date.now();
    expect(graceMs).toBeGreaterThan(23 * 3_600_000);
    expect(graceMs).toBeLessThanOrEqual(24 * 3_600_000 + 60_000);
    for (const path of pagesOf(uuid!)) {
      const page = await admin.get(path);
      expect(page.text, path).not.toContain(newSecret);
      expect(page.text, path).not.toMatch(SECRET);
    }
    expect(textOf((await admin.get(`/merchant/webhooks/${uuid}`)).text, "secret-state")).toContain("The previous secret also signs until");
  });

  it("sends a test event: the loopback receiver gets it signed, the log and the event's page show the delivery, and it can be sent again", async () => {
    const { res, uuid } = await addEndpoint(admin, [["url", `${receiverUrl}/hooks/test`], ["scope", "all"]]);
    expect(res.status, textOfHtml(res.text)).toBe(201);
    const sent = await admin.post(`/merchant/webhooks/${uuid}/test`, await formFields(admin, `/merchant/webhooks/${uuid}`));
    expect(sent.status, textOfHtml(sent.text)).toBe(303);
    const eventUuid = /[?&]event=([0-9a-f-]{36})/.exec(sent.location ?? "")?.[1];
    expect(eventUuid).toBeDefined();
    const after = await admin.get(sent.location!);
    expect(textOf(after.text, "notice")).toContain("A test event (webhook.test) was sent");
    // The delivery is in the log at once (waiting or done).
    const deliveries = elementById(after.text, "deliveries");
    expect(deliveries?.text).toContain("webhook.test");
    expect(deliveries?.text).toContain(eventUuid);

    // The notifier delivers it to the receiver, signed, with the event's id.
    const got = await eventually(
      async () => received.find((r) => r.path === "/hooks/test"),
      (r) => r !== undefined,
      "the receiver to get the test event",
      60_000,
    );
    expect(got!.headers["webhook-id"]).toBe(eventUuid);
    expect(got!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(JSON.parse(got!.body).type).toBe("webhook.test");
    const log = await eventually(
      async () => textOf((await admin.get(`/merchant/webhooks/${uuid}`)).text, "deliveries"),
      (text) => text.includes("Delivered"),
      "the log to show the delivery succeeded",
      30_000,
    );
    expect(log).toMatch(/HTTP 204 in \d+ ms/);

    // The event's page, reached from the log.
    const eventPage = await admin.get(`/merchant/webhooks/events/${eventUuid}`);
    expect(eventPage.status, textOfHtml(eventPage.text)).toBe(200);
    expect(textOf(eventPage.text, "deliveries")).toContain(`${receiverUrl}/hooks/test`);
    // Sent again: the same webhook-id.
    const fields = await formFields(admin, `/merchant/webhooks/events/${eventUuid}`);
    const resent = await admin.post(`/merchant/webhooks/${uuid}/resend`, { ...fields, event_uuid: eventUuid!, back: "event" });
    expect(resent.status, textOfHtml(resent.text)).toBe(303);
    expect(resent.location).toBe(`/merchant/webhooks/events/${eventUuid}?notice=resent`);
    await eventually(async () => received.filter((r) => r.path === "/hooks/test" && r.headers["webhook-id"] === eventUuid).length, (n) => n >= 2, "the resent test event", 60_000);
    // Every failed delivery since a time: none failed.
    const failed = await admin.post(`/merchant/webhooks/${uuid}/resend-failed`, { ...(await formFields(admin, `/merchant/webhooks/${uuid}`)), since: new Date(Date.now() - 3_600_000).toISOString().slice(0, 16) });
    expect(failed.status, textOfHtml(failed.text)).toBe(303);
    expect(textOf((await admin.get(failed.location!)).text, "notice")).toContain("No failed delivery");
  }, 180_000);

  it("edits and disables an endpoint (nothing is sent to it then), and deletes it after a confirmation page", async () => {
    const { uuid } = await addEndpoint(admin, [["url", `${receiverUrl}/hooks/edit`], ["scope", "all"]]);
    const edit = await admin.get(`/merchant/webhooks/${uuid}/edit`);
    expect(edit.status).toBe(200);
    const saved = await admin.post(`/merchant/webhooks/${uuid}/edit`, {
      csrf_token: csrfTokenIn(edit.text),
      merchant_uuid: merchantOf(edit.text),
      url: `${receiverUrl}/hooks/edited`,
      scope: "some",
      event_type: "checkout.created",
      description: "Edited",
      enabled: "false",
    });
    expect(saved.status, textOfHtml(saved.text)).toBe(303);
    const page = await admin.get(saved.location!);
    expect(textOf(page.text, "endpoint-url")).toBe(`${receiverUrl}/hooks/edited`);
    expect(textOf(page.text, "endpoint-types")).toBe("checkout.created");
    expect(textOf(page.text, "endpoint-state")).toBe("Disabled");
    // A disabled endpoint is sent nothing, not even a test event.
    const test = await admin.post(`/merchant/webhooks/${uuid}/test`, await formFields(admin, `/merchant/webhooks/${uuid}`));
    expect(test.status).toBe(409);
    expect(textOfHtml(test.text)).toContain("Enable it first");
    const enabled = await admin.post(`/merchant/webhooks/${uuid}/enabled`, { ...(await formFields(admin, `/merchant/webhooks/${uuid}`)), enabled: "true" });
    expect(enabled.status).toBe(303);
    expect(textOf((await admin.get(`/merchant/webhooks/${uuid}`)).text, "endpoint-state")).toBe("Enabled");

    const confirm = await admin.get(`/merchant/webhooks/${uuid}/delete`);
    expect(confirm.status).toBe(200);
    expect(textOfHtml(confirm.text)).toContain("This cannot be undone");
    expect(await endpointIds(admin)).toContain(uuid);
    const deleted = await admin.post(`/merchant/webhooks/${uuid}/delete`, { csrf_token: csrfTokenIn(confirm.text), merchant_uuid: merchantOf(confirm.text) });
    expect(deleted.status).toBe(303);
    expect(deleted.location).toBe("/merchant/webhooks?notice=deleted");
    expect(await endpointIds(admin)).not.toContain(uuid);
    const gone = await admin.get(`/merchant/webhooks/${uuid}`);
    expect(gone.status).toBe(404);
    expect(textOfHtml(gone.text)).toContain("There is no such webhook endpoint in your merchant account");
  });

  it("shows refused URLs on the form with what was typed, and adds nothing", async () => {
    const before = await endpointIds(admin);
    for (const [url, words] of [
      ["http://10.0.0.1/hook", "not a public address"],
      ["http://169.254.169.254/latest/meta-data/", "not a public address"],
      ["ftp://files.example.com/x", "Enter a full web address"],
      ["not a url", "Enter a full web address"],
    ] as const) {
      const { res } = await addEndpoint(admin, [["url", url], ["scope", "some"], ["event_type", "pay_in_intent.created"], ["description", "Kept"]]);
      expect(res.status, url).toBe(400);
      expect(textOf(res.text, "url-error"), url).toContain(words);
      expect(elementById(res.text, "url")!.attributes.value, url).toBe(url);
      expect(elementById(res.text, "description")!.attributes.value, url).toBe("Kept");
      expect(elementById(res.text, "type-pay-in-intent-created")!.attributes.checked, url).toBeDefined();
      expect(res.text, url).not.toMatch(SECRET);
    }
    expect(await endpointIds(admin)).toEqual(before);
  });

  it("refuses a member without webhook.manage (403) and shows them no webhooks link", async () => {
    const before = await endpointIds(admin);
    const overview = await member.get("/merchant/webhooks");
    expect(overview.status).toBe(403);
    expect(textOfHtml(overview.text)).toContain("does not let you see or manage this merchant's webhooks");
    const home = await member.get("/merchant");
    expect(home.status).toBe(200);
    expect(home.text).not.toContain('href="/merchant/webhooks"');
    const csrf = csrfTokenIn(home.text);
    expect((await member.get("/merchant/webhooks/new")).status).toBe(403);
    const created = await member.post("/merchant/webhooks/new", { csrf_token: csrf, merchant_uuid: shop.uuid, url: `${receiverUrl}/hooks/member`, scope: "all" });
    expect(created.status).toBe(403);
    expect(created.text).not.toMatch(SECRET);
    for (const uuid of before.slice(0, 1)) {
      expect((await member.get(`/merchant/webhooks/${uuid}`)).status).toBe(403);
      expect((await member.post(`/merchant/webhooks/${uuid}/rotate`, { csrf_token: csrf, merchant_uuid: shop.uuid })).status).toBe(403);
      expect((await member.post(`/merchant/webhooks/${uuid}/delete`, { csrf_token: csrf, merchant_uuid: shop.uuid })).status).toBe(403);
    }
    expect(await endpointIds(admin)).toEqual(before);
  });

  it("refuses a form without the session's CSRF token (403) and changes nothing", async () => {
    const { uuid } = await addEndpoint(admin, [["url", `${receiverUrl}/hooks/csrf`], ["scope", "all"]]);
    const before = await endpointIds(admin);
    const foreign = csrfTokenIn((await otherAdmin.get("/merchant")).text);
    for (const token of [undefined, "", "forged", foreign]) {
      const fields: Record<string, string> = { merchant_uuid: shop.uuid, url: `${receiverUrl}/hooks/forged`, scope: "all" };
      if (token !== undefined) fields.csrf_token = token;
      const res = await admin.post("/merchant/webhooks/new", fields);
      expect(res.status, String(token)).toBe(403);
      expect(textOfHtml(res.text)).toContain("This form has expired or did not come from this page");
      for (const action of ["rotate", "delete", "test"]) expect((await admin.post(`/merchant/webhooks/${uuid}/${action}`, fields)).status, action).toBe(403);
    }
    const fields = await formFields(admin, "/merchant/webhooks/new");
    expect((await admin.post("/merchant/webhooks/new", { ...fields, url: `${receiverUrl}/hooks/evil`, scope: "all" }, { origin: "https://evil.example" })).status).toBe(403);
    expect(await endpointIds(admin)).toEqual(before);
  });

  it("answers hostile input readably: a form for another merchant (409), another merchant's endpoint and malformed ids (404)", async () => {
    // A person of two merchants, removed from the one a form was shown for.
    const [first, second] = [await readyMerchant(e2e, "Stale Hooks", { xpub: null }), await readyMerchant(e2e, "Kept Hooks", { xpub: null })];
    const person = await merchantPerson(e2e, [first.uuid, second.uuid]);
    const client = await signInFor(e2e, person, first.uuid);
    const form = await client.get("/merchant/webhooks/new");
    expect(form.text).toContain(`name="merchant_uuid" value="${first.uuid}"`);
    await e2e.operator.merchants.removeMember({ merchantUuid: first.uuid, identityUuid: person.uuid });
    const stale = await client.post("/merchant/webhooks/new", { csrf_token: csrfTokenIn(form.text), merchant_uuid: first.uuid, url: `${receiverUrl}/hooks/stale`, scope: "all" });
    expect(stale.status, textOfHtml(stale.text)).toBe(409);
    expect(textOfHtml(stale.text)).toMatch(/nothing was changed/i);
    expect(await endpointIds(client)).toEqual([]);

    // Another merchant's endpoint is not found, on pages and forms.
    const { uuid: theirs } = await addEndpoint(otherAdmin, [["url", `${receiverUrl}/hooks/theirs`], ["scope", "all"]]);
    const fields = await formFields(admin, "/merchant/webhooks/new");
    for (const path of [`/merchant/webhooks/${theirs}`, `/merchant/webhooks/${theirs}/edit`, `/merchant/webhooks/${theirs}/delete`]) {
      const page = await admin.get(path);
      expect(page.status, path).toBe(404);
      expect(textOfHtml(page.text), path).toContain("There is no such webhook endpoint in your merchant account");
    }
    for (const action of ["rotate", "delete", "test"]) expect((await admin.post(`/merchant/webhooks/${theirs}/${action}`, fields)).status, action).toBe(404);
    expect(await endpointIds(otherAdmin)).toEqual([theirs]);

    // Malformed ids: readable 404 pages, never a 500.
    for (const path of ["/merchant/webhooks/not-a-uuid", "/merchant/webhooks/00000000-0000-0000-0000-00000000000g", "/merchant/webhooks/events/%27%3B--", `/merchant/webhooks/${"a".repeat(300)}`, "/merchant/webhooks/events/00000000-0000-7000-8000-000000000000"]) {
      const page = await admin.get(path);
      expect(page.status, path).toBe(404);
      expectSecurityHeaders(page);
      expect(textOfHtml(page.text), path).toMatch(/There is no such (webhook endpoint|event)/);
    }
    for (const action of ["rotate", "delete", "test", "resend"]) expect((await admin.post(`/merchant/webhooks/not-a-uuid/${action}`, { ...fields, event_uuid: "x" })).status, action).toBe(404);
    const { uuid: mine } = await addEndpoint(admin, [["url", `${receiverUrl}/hooks/mine`], ["scope", "all"]]);
    expect((await admin.post(`/merchant/webhooks/${mine}/resend`, { ...fields, event_uuid: "not-an-event" })).status).toBe(404);
    expect((await admin.post(`/merchant/webhooks/${mine}/resend`, { ...fields, event_uuid: "00000000-0000-7000-8000-000000000000" })).status).toBe(404);
    expect((await admin.get(`/merchant/webhooks/${mine}?before=%00`)).status).toBe(400);
    const badSince = await admin.post(`/merchant/webhooks/${mine}/resend-failed`, { ...fields, since: "<script>" });
    expect(badSince.status).toBe(400);
    expect(textOf(badSince.text, "since-error")).toContain("Enter a date and time in UTC");

    // Hostile form values: refused readably, nothing added.
    const before = await endpointIds(admin);
    for (const [over, status] of [
      [{ url: "javascript:alert(1)" }, 400],
      [{ url: `https://example.com/${"a".repeat(2_100)}` }, 400],
      [{ description: "null \u0000 byte" }, 400],
      [{ description: "Refund \u202Eredro" }, 400],
      [{ scope: "some", event_type: "pay_in_intent.paid\u0000" }, 400],
      [{ description: "x".repeat(17_000) }, 413],
    ] as const) {
      const form: Record<string, string> = { ...fields, url: `${receiverUrl}/hooks/hostile`, scope: "all" };
      const res = await admin.post("/merchant/webhooks/new", Object.assign(form, over));
      expect(res.status, JSON.stringify(over).slice(0, 60)).toBe(status);
      expectSecurityHeaders(res);
      expect(res.text).not.toMatch(SECRET);
    }
    expect(await endpointIds(admin)).toEqual(before);
    expect((await admin.request("PUT", `/merchant/webhooks/${mine}/rotate`)).status).toBe(405);
  });
});
