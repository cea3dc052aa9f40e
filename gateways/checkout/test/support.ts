/**
 * Helpers shared by the checkout gateway's tests: a real platform (on local
 * chains when asked), merchants and their people provisioned as an operator
 * does, and a small cookie-keeping HTTP client that reads pages as a browser
 * without JavaScript would.
 */
import { randomBytes } from "node:crypto";
import type { Client } from "@connectrpc/connect";
import { startLocalChains, type LocalChains } from "@payin/local-chains";
import { payinsV1 } from "@payin/proto";
import { createServiceClient } from "@payin/rpc";
import { awaitFreshTotpStep, Operator, startTestPlatform, totpCodeAt, totpSecretOf, type TestMerchant, type TestPlatform } from "@payin/testing";
import { afterAll, beforeAll, expect } from "vitest";

export interface CheckoutE2e {
  platform: TestPlatform;
  /** The local chains the observer watches; undefined unless asked for. */
  chains: LocalChains | undefined;
  operator: Operator;
  /** payins over RPC with the test credential (to count what exists). */
  payins: Client<typeof payinsV1.PayinsService>;
  /** The checkout gateway's base URL. */
  checkoutUrl: string;
  /** A signed-in platform admin's session token (bearer, MFA done): what identity wants of who creates people. */
  adminToken: string;
  adminTotpSecret: string;
}

/**
 * A real platform for the test file, started before its tests and stopped after
 * them; with `chains`, on two local anvil chains that its observer watches.
 */
export function useCheckoutPlatform(options: { chains?: boolean; env?: Record<string, string> } = {}): CheckoutE2e {
  const e2e = {} as CheckoutE2e;
  beforeAll(async () => {
    e2e.chains = options.chains ? await startLocalChains({ blockTimeS: 1 }) : undefined;
    e2e.platform = await startTestPlatform({ env: { ...(e2e.chains?.env ?? {}), ...options.env } });
    e2e.operator = new Operator(e2e.platform);
    e2e.payins = createServiceClient(payinsV1.PayinsService, { baseUrl: e2e.platform.serviceUrls.payins!, serviceToken: e2e.platform.serviceToken, timeoutMs: 15_000 });
    e2e.checkoutUrl = e2e.platform.checkoutUrl;
    const admin = await e2e.operator.identity.bootstrapAdmin({ email: "admin@example.com" });
    e2e.adminTotpSecret = totpSecretOf(admin.totpUri);
    const login = await e2e.operator.identity.login({ email: "admin@example.com", password: admin.password, transport: "bearer", clientIp: "127.0.0.1" });
    if (login.result.case !== "mfaChallengeToken") throw new Error("the bootstrap admin must be asked for MFA");
    await awaitFreshTotpStep();
    const done = await e2e.operator.identity.completeMfa({ mfaChallengeToken: login.result.value, code: totpCodeAt(e2e.adminTotpSecret), clientIp: "127.0.0.1" });
    e2e.adminToken = done.authenticated!.sessionToken;
  }, 240_000);
  afterAll(async () => {
    await e2e.platform?.stopAll();
    await e2e.chains?.stop();
  }, 60_000);
  return e2e;
}

/** A person who signs in to the merchant area. */
export interface MerchantPerson {
  uuid: string;
  email: string;
  password: string;
  /** Base32 TOTP secret when MFA is enrolled. */
  totpSecret: string | null;
}

/**
 * Creates a person with `roles` (merchant_admin by default), a member of each
 * of `merchantUuids`; with `mfa`, TOTP enrolled (every sign-in then asks for a code).
 */
export async function merchantPerson(
  e2e: CheckoutE2e,
  merchantUuids: string[],
  options: { roles?: string[]; mfa?: boolean } = {},
): Promise<MerchantPerson> {
  const email = `m-${randomBytes(5).toString("hex")}@example.com`;
  const password = `pw-${randomBytes(12).toString("base64url")}`;
  const { identity } = await e2e.operator.identity.createIdentity({
    caller: { sessionToken: e2e.adminToken },
    email,
    password,
    roles: options.roles ?? ["merchant_admin"],
  });
  for (const merchantUuid of merchantUuids) await e2e.operator.merchants.ensureMember({ merchantUuid, identityUuid: identity!.uuid });
  let totpSecret: string | null = null;
  if (options.mfa) {
    const login = await e2e.operator.identity.login({ email, password, transport: "bearer", clientIp: "127.0.0.1" });
    if (login.result.case !== "authenticated") throw new Error("a person without MFA signs in at once");
    const caller = { sessionToken: login.result.value.sessionToken };
    const enrolment = await e2e.operator.identity.enrollTotp({ caller, currentPassword: password, clientIp: "127.0.0.1" });
    totpSecret = totpSecretOf(enrolment.otpauthUri);
    await awaitFreshTotpStep();
    await e2e.operator.identity.confirmTotp({ caller, code: totpCodeAt(totpSecret) });
  }
  return { uuid: identity!.uuid, email, password, totpSecret };
}

/** A merchant as the operator makes it (ready by default; see Operator.merchant), named for the payer. */
export function readyMerchant(e2e: CheckoutE2e, name = "Checkout Test Shop", options: Parameters<Operator["merchant"]>[0] = {}): Promise<TestMerchant> {
  return e2e.operator.merchant({ name, credential: false, ...options });
}

/** A page or JSON answer as the client saw it. */
export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON when the answer is JSON. */
  json: any;
  /** Where a redirect points (absolute path), or null. */
  location: string | null;
}

/**
 * An HTTP client that keeps cookies as a browser does (by name; `__Host-`
 * cookies are Secure, which this client ignores, as browsers do for
 * localhost) and never follows redirects, so tests see each step.
 */
export class PageClient {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly baseUrl: string,
    /** Headers every request carries (e.g. an Origin, or X-Forwarded-For). */
    readonly defaultHeaders: Record<string, string> = {},
  ) {}

  async request(method: string, path: string, options: { form?: Record<string, string>; headers?: Record<string, string>; body?: string } = {}): Promise<PageResponse> {
    const headers: Record<string, string> = { ...this.defaultHeaders, ...options.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    let body = options.body;
    if (options.form) {
      body = new URLSearchParams(options.form).toString();
      headers["content-type"] ??= "application/x-www-form-urlencoded";
    }
    const res = await fetch(new URL(path, this.baseUrl), { method, headers, body, redirect: "manual" });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const isJson = (res.headers.get("content-type") ?? "").startsWith("application/json");
    const location = res.headers.get("location");
    return { status: res.status, headers: res.headers, text, json: isJson && text ? JSON.parse(text) : undefined, location };
  }

  get(path: string, headers: Record<string, string> = {}) {
    return this.request("GET", path, { headers });
  }

  post(path: string, form: Record<string, string> = {}, headers: Record<string, string> = {}) {
    return this.request("POST", path, { form, headers });
  }
}

/** The value of a form's hidden CSRF field in a page. */
export function csrfTokenIn(html: string): string {
  const match = /name="csrf_token" value="([^"]+)"/.exec(html);
  if (!match) throw new Error("the page has no form with a CSRF token");
  return match[1]!;
}

/** The security headers every answer of the checkout gateway carries. */
export function expectSecurityHeaders(res: PageResponse): void {
  const csp = res.headers.get("content-security-policy") ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain("unsafe-inline");
  expect(res.headers.get("referrer-policy")).toBe("no-referrer");
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
}

// Helpers of the payer pages' tests (an import may stand anywhere at the top level; kept with what uses it).
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import jsQR from "jsqr";

/** Polls `read` until `done` holds of its value; fails naming `what`, with the last value, after `timeoutMs`. */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000, intervalMs = 200): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Waits until allocation says every pair of the merchant (both by default) is Ready. */
export async function awaitReadiness(e2e: CheckoutE2e, merchantUuid: string, timeoutMs = 60_000): Promise<void> {
  await eventually(
    async () => (await e2e.operator.allocation.getReadiness({ merchantUuid })).pairs.map((p) => ({ pair: `${p.asset}/${p.rail}`, ready: p.ready, reasons: p.reasons })),
    (pairs) => pairs.length > 0 && pairs.every((p) => p.ready),
    "the merchant's pairs to be Ready",
    timeoutMs,
  );
}

/** One element of a page, found by its id: its tag, the attributes of its opening tag, its inner HTML and its text. */
export interface PageElement {
  tag: string;
  attributes: Record<string, string>;
  inner: string;
  /** The inner text, tags removed, entities decoded, white space collapsed. */
  text: string;
}

const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);

/** The element with `id` in `html`, or null. Enough HTML reading for the gateway's own server-rendered pages. */
export function elementById(html: string, id: string): PageElement | null {
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const open = new RegExp(`<([a-zA-Z][a-zA-Z0-9-]*)(\\s[^>]*?\\bid\\s*=\\s*(?:"${escaped}"|'${escaped}')[^>]*)>`).exec(html);
  if (!open) return null;
  const tag = open[1]!.toLowerCase();
  const attributes = attributesOf(open[2]!);
  const start = open.index + open[0].length;
  if (VOID_ELEMENTS.has(tag) || open[2]!.trimEnd().endsWith("/")) return { tag, attributes, inner: "", text: "" };
  const tags = new RegExp(`<(/?)${tag}\\b[^>]*?(/?)>`, "gi");
  tags.lastIndex = start;
  let depth = 1;
  for (let match = tags.exec(html); match; match = tags.exec(html)) {
    if (match[2] === "/") continue;
    depth += match[1] === "/" ? -1 : 1;
    if (depth === 0) {
      const inner = html.slice(start, match.index);
      return { tag, attributes, inner, text: textOfHtml(inner) };
    }
  }
  throw new Error(`the element #${id} is never closed`);
}

function attributesOf(source: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of source.matchAll(/([^\s=/"'>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    attributes[match[1]!.toLowerCase()] = decodeEntities(match[2] ?? match[3] ?? match[4] ?? "");
  }
  return attributes;
}

/** What a reader sees of some HTML: no tags, no scripts, entities decoded, white space collapsed. */
export function textOfHtml(html: string): string {
  return decodeEntities(
    html
      .replace(/<(script|style|template)\b[\s\S]*?<\/\1>/gi, " ")
      .replace(/<[^>]*>/g, " "),
  )
    .replace(/\s+/g, " ")
    .trim();
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === "#") return String.fromCodePoint(entity[1] === "x" || entity[1] === "X" ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10));
    return named[entity.toLowerCase()] ?? whole;
  });
}

/** A page loads no inline script or style (what the strict CSP would block in a browser). */
export function expectNoInlineScriptOrStyle(html: string): void {
  for (const script of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    expect(script[1], "every script is loaded from a file").toMatch(/\ssrc\s*=/i);
    expect(script[2]!.trim(), "a script with src has no inline body").toBe("");
  }
  expect(html, "no <style> element").not.toMatch(/<style\b/i);
  expect(html, "no style attribute").not.toMatch(/<[^>]+\sstyle\s*=/i);
  expect(html, "no inline event handler").not.toMatch(/<[^>]+\son[a-z]+\s*=/i);
}

/**
 * Reads the QR code drawn as an inline SVG (modules as stroked h/v path
 * segments, as the qrcode library draws them, or as rects): rasterises it with
 * a quiet zone and decodes it with jsqr. Null when nothing decodes.
 */
export function decodeSvgQr(svg: string): string | null {
  const viewBox = /viewBox\s*=\s*"\s*([-\d.]+)[\s,]+([-\d.]+)[\s,]+([-\d.]+)[\s,]+([-\d.]+)\s*"/.exec(svg);
  if (!viewBox) return null;
  const [minX, minY, width, height] = viewBox.slice(1).map(Number) as [number, number, number, number];
  const scale = 8;
  const quiet = 4 * scale;
  const pxWidth = Math.ceil(width * scale) + 2 * quiet;
  const pxHeight = Math.ceil(height * scale) + 2 * quiet;
  const pixels = new Uint8ClampedArray(pxWidth * pxHeight * 4).fill(255);
  const paint = (x0: number, y0: number, x1: number, y1: number) => {
    const left = Math.round((Math.min(x0, x1) - minX) * scale) + quiet;
    const right = Math.round((Math.max(x0, x1) - minX) * scale) + quiet;
    const top = Math.round((Math.min(y0, y1) - minY) * scale) + quiet;
    const bottom = Math.round((Math.max(y0, y1) - minY) * scale) + quiet;
    for (let y = Math.max(0, top); y < Math.min(pxHeight, bottom); y++) {
      for (let x = Math.max(0, left); x < Math.min(pxWidth, right); x++) pixels.fill(0, (y * pxWidth + x) * 4, (y * pxWidth + x) * 4 + 3);
    }
  };
  const isLight = (colour: string | undefined) => !colour || /^(none|transparent|white|#fff|#ffffff|#ffffffff)$/i.test(colour.trim());
  for (const element of svg.matchAll(/<(path|rect)\b([^>]*)>/gi)) {
    const attributes = attributesOf(element[2]!);
    if (element[1]!.toLowerCase() === "rect") {
      if (isLight(attributes.fill ?? "#000")) continue;
      const x = Number(attributes.x ?? 0);
      const y = Number(attributes.y ?? 0);
      paint(x, y, x + Number(attributes.width), y + Number(attributes.height));
      continue;
    }
    if (isLight(attributes.stroke)) continue;
    const half = Number(attributes["stroke-width"] ?? 1) / 2;
    let x = 0;
    let y = 0;
    for (const command of (attributes.d ?? "").matchAll(/([MmHhVvLlZz])([^MmHhVvLlZz]*)/g)) {
      const args = command[2]!.trim().split(/[\s,]+/).filter(Boolean).map(Number);
      switch (command[1]) {
        case "M": [x, y] = [args[0]!, args[1]!]; break;
        case "m": [x, y] = [x + args[0]!, y + args[1]!]; break;
        case "h": paint(x, y - half, x + args[0]!, y + half); x += args[0]!; break;
        case "H": paint(x, y - half, args[0]!, y + half); x = args[0]!; break;
        case "v": paint(x - half, y, x + half, y + args[0]!); y += args[0]!; break;
        case "V": paint(x - half, y, x + half, args[0]!); y = args[0]!; break;
        default: break;
      }
    }
  }
  return jsQR(pixels, pxWidth, pxHeight)?.data ?? null;
}

/**
 * The platform's log so far. Another test run starting on the same machine
 * empties the log directory; the platform keeps writing to its open (now
 * unlinked) file, which this process still reads through /proc.
 */
export function readPlatformLog(e2e: CheckoutE2e): string {
  try {
    return readFileSync(e2e.platform.logFile, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    for (const fd of readdirSync("/proc/self/fd")) {
      const target = (() => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`);
        } catch {
          return "";
        }
      })();
      if (target === `${e2e.platform.logFile} (deleted)`) return readFileSync(`/proc/self/fd/${fd}`, "utf8");
    }
    throw error;
  }
}
